<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
<context>
    <name>AboutPage</name>
    <message>
        <source>About Hearth</source>
        <translation>关于 Hearth</translation>
    </message>
    <message>
        <source>Hearth %1</source>
        <translation>Hearth %1</translation>
    </message>
    <message>
        <source>Licence: %1</source>
        <translation>许可证：%1</translation>
    </message>
    <message>
        <source>Built with</source>
        <translation>使用的组件</translation>
    </message>
    <message>
        <source>%1, licence %2</source>
        <translation>%1，许可证 %2</translation>
    </message>
    <message>
        <source>Diagnostics</source>
        <translation>诊断信息</translation>
    </message>
    <message>
        <source>When something goes wrong, copy the diagnostics (versions, GPU, driver, model, the last error) into your report. The log file has the details.</source>
        <translation>遇到问题时，请把诊断信息（版本、GPU、驱动、模型、最近的错误）复制到你的报告中。详细内容见日志文件。</translation>
    </message>
    <message>
        <source>Log file: %1</source>
        <translation>日志文件：%1</translation>
    </message>
    <message>
        <source>Last error: %1</source>
        <translation>最近的错误：%1</translation>
    </message>
    <message>
        <source>Copy diagnostics</source>
        <translation>复制诊断信息</translation>
    </message>
    <message>
        <source>Copied to the clipboard</source>
        <translation>已复制到剪贴板</translation>
    </message>
    <message>
        <source>Close</source>
        <translation>关闭</translation>
    </message>
</context>
<context>
    <name>ApiKeyStore</name>
    <message>
        <source>The API key is no longer in the keyring: enter it again in the connection.</source>
        <translation>API 密钥已不在密钥环中：请在连接中重新输入。</translation>
    </message>
    <message>
        <source>No keyring is available, so the API key was not kept: enter it again in the connection.</source>
        <translation>没有可用的密钥环，API 密钥未被保留：请在连接中重新输入。</translation>
    </message>
    <message>
        <source>No keyring is available, so the API key is not saved: it is used until Hearth quits.</source>
        <translation>没有可用的密钥环，API 密钥不会被保存：它只在 Hearth 退出前使用。</translation>
    </message>
</context>
<context>
    <name>AppInstance</name>
    <message>
        <source>The graphics card stopped working, and Hearth can use it again only after a restart. Everything you wrote and every reply so far is saved. Restart Hearth to continue this conversation.</source>
        <translation>显卡已停止工作，Hearth 需要重新启动才能再次使用它。你写的所有内容和目前的每条回复都已保存。重新启动 Hearth 即可继续这段对话。</translation>
    </message>
</context>
<context>
    <name>CatalogRow</name>
    <message>
        <source>about %1 (size not published)</source>
        <translation>约 %1（未公布大小）</translation>
    </message>
    <message>
        <source>size not published</source>
        <translation>未公布大小</translation>
    </message>
    <message>
        <source>Coming</source>
        <translation>即将支持</translation>
    </message>
    <message>
        <source>Estimating…</source>
        <translation>正在估算…</translation>
    </message>
    <message>
        <source>Fits</source>
        <translation>可放入</translation>
    </message>
    <message>
        <source>Tight</source>
        <translation>勉强</translation>
    </message>
    <message>
        <source>Does not fit</source>
        <translation>放不下</translation>
    </message>
    <message>
        <source>Unknown</source>
        <translation>未知</translation>
    </message>
    <message>
        <source>fast</source>
        <translation>快</translation>
    </message>
    <message>
        <source>usable</source>
        <translation>可用</translation>
    </message>
    <message>
        <source>slow</source>
        <translation>慢</translation>
    </message>
    <message>
        <source>very slow</source>
        <translation>很慢</translation>
    </message>
    <message>
        <source>Needs the %1 architecture, which this version of Hearth does not run yet.</source>
        <translation>需要 %1 架构，此版本的 Hearth 尚不支持。</translation>
    </message>
    <message>
        <source>Needs about %1 at %2 context: more than %3 can hold.</source>
        <translation>在 %2 上下文下约需 %1：超出 %3 的容量。</translation>
    </message>
    <message>
        <source>Needs about %1 at %2 context: %3 holds it, but other programs use its memory now.</source>
        <translation>在 %2 上下文下约需 %1：%3 放得下，但其他程序正占用其内存。</translation>
    </message>
    <message>
        <source>Needs about %1 at %2 context on %3.</source>
        <translation>在 %3 上、%2 上下文下约需 %1。</translation>
    </message>
    <message>
        <source>Fits up to %1 context.</source>
        <translation>最多可容纳 %1 上下文。</translation>
    </message>
    <message>
        <source>On the CPU: %1, at most about %2 tokens per second.</source>
        <translation>在 CPU 上：%1，每秒最多约 %2 个词元。</translation>
    </message>
    <message>
        <source>%1 parameters</source>
        <translation>%1 参数</translation>
    </message>
    <message>
        <source>Recommended</source>
        <translation>推荐</translation>
    </message>
    <message>
        <source>Downloaded</source>
        <translation>已下载</translation>
    </message>
    <message>
        <source>Hugging Face folder, %1 files</source>
        <translation>Hugging Face 文件夹，%1 个文件</translation>
    </message>
    <message>
        <source>GGUF in %1 parts</source>
        <translation>GGUF，分为 %1 部分</translation>
    </message>
    <message>
        <source>licence: %1</source>
        <translation>许可证：%1</translation>
    </message>
    <message>
        <source>Download</source>
        <translation>下载</translation>
    </message>
    <message>
        <source>Download %1</source>
        <translation>下载 %1</translation>
    </message>
    <message>
        <source>Size unknown</source>
        <translation>规模未知</translation>
    </message>
    <message>
        <source>The catalog does not list this model&apos;s sizes, so Hearth cannot estimate whether it fits. Once it is downloaded, the library estimates it from the file.</source>
        <translation>目录中没有列出此模型的规模，因此 Hearth 无法估计它是否放得下。下载之后，模型库会根据文件进行估计。</translation>
    </message>
    <message>
        <source>Hugging Face folder, shards as its index lists them</source>
        <translation>Hugging Face 文件夹，分片以其索引所列为准</translation>
    </message>
</context>
<context>
    <name>ChatController</name>
    <message>
        <source>The engine failed during this reply.</source>
        <translation>生成这条回复时推理引擎出错。</translation>
    </message>
</context>
<context>
    <name>ChatFormat</name>
    <message>
        <source>Today</source>
        <translation>今天</translation>
    </message>
    <message>
        <source>Yesterday</source>
        <translation>昨天</translation>
    </message>
    <message>
        <source>Previous 7 days</source>
        <translation>过去 7 天</translation>
    </message>
    <message>
        <source>Older</source>
        <translation>更早</translation>
    </message>
    <message>
        <source>%1 tok/s</source>
        <translation>%1 tok/s</translation>
    </message>
    <message>
        <source>prefill %1 tok/s</source>
        <translation>预填充 %1 tok/s</translation>
    </message>
    <message>
        <source>TTFT %1 ms</source>
        <translation>首个 token %1 ms</translation>
    </message>
    <message>
        <source>1 token</source>
        <translation>1 个 token</translation>
    </message>
    <message>
        <source>%1 tokens</source>
        <translation>%1 个 token</translation>
    </message>
</context>
<context>
    <name>ChatOptionsPopup</name>
    <message>
        <source>System prompt</source>
        <translation>系统提示词</translation>
    </message>
    <message>
        <source>How the assistant should answer in this chat</source>
        <translation>助手在这个对话中应该如何回答</translation>
    </message>
    <message>
        <source>System prompt of this chat</source>
        <translation>这个对话的系统提示词</translation>
    </message>
    <message>
        <source>Think before answering (models that can)</source>
        <translation>回答前先思考（仅限支持的模型）</translation>
    </message>
</context>
<context>
    <name>ChatSampling</name>
    <message>
        <source>model default</source>
        <translation>模型默认值</translation>
    </message>
    <message>
        <source>this chat</source>
        <translation>本对话</translation>
    </message>
    <message>
        <source>default</source>
        <translation>默认</translation>
    </message>
    <message>
        <source>Sampling</source>
        <translation>采样</translation>
    </message>
    <message>
        <source>Temperature</source>
        <translation>温度</translation>
    </message>
    <message>
        <source>Temperature of this chat</source>
        <translation>本对话的温度</translation>
    </message>
    <message>
        <source>Top-k</source>
        <translation>Top-k</translation>
    </message>
    <message>
        <source>Top-k of this chat</source>
        <translation>本对话的 Top-k</translation>
    </message>
    <message>
        <source>Top-p</source>
        <translation>Top-p</translation>
    </message>
    <message>
        <source>Top-p of this chat</source>
        <translation>本对话的 Top-p</translation>
    </message>
    <message>
        <source>Min-p</source>
        <translation>Min-p</translation>
    </message>
    <message>
        <source>Min-p of this chat</source>
        <translation>本对话的 Min-p</translation>
    </message>
    <message>
        <source>Repetition penalty</source>
        <translation>重复惩罚</translation>
    </message>
    <message>
        <source>Repetition penalty of this chat</source>
        <translation>本对话的重复惩罚</translation>
    </message>
    <message>
        <source>Maximum reply length</source>
        <translation>最大回复长度</translation>
    </message>
    <message>
        <source>Maximum reply length of this chat</source>
        <translation>本对话的最大回复长度</translation>
    </message>
    <message>
        <source>Seed</source>
        <translation>随机种子</translation>
    </message>
    <message>
        <source>Random</source>
        <translation>随机</translation>
    </message>
    <message>
        <source>Seed of this chat</source>
        <translation>本对话的随机种子</translation>
    </message>
    <message>
        <source>Reset to model defaults</source>
        <translation>恢复为模型默认值</translation>
    </message>
    <message>
        <source>Reset to defaults</source>
        <translation>恢复为默认值</translation>
    </message>
    <message>
        <source>Stop sequences</source>
        <translation>停止序列</translation>
    </message>
    <message>
        <source>Stop sequences of this chat</source>
        <translation>此对话的停止序列</translation>
    </message>
    <message>
        <source>One a line (%1 for a line break): the reply ends before any of them</source>
        <translation>每行一个（%1 表示换行）：回复在其中任何一个之前结束</translation>
    </message>
</context>
<context>
    <name>ChatView</name>
    <message>
        <source>Conversation</source>
        <translation>对话</translation>
    </message>
    <message>
        <source>Scroll the conversation</source>
        <translation>滚动对话</translation>
    </message>
    <message>
        <source>Go to the latest message</source>
        <translation>转到最新消息</translation>
    </message>
    <message>
        <source>Open this link?</source>
        <translation>要打开这个链接吗？</translation>
    </message>
    <message>
        <source>The reply links to:
%1</source>
        <translation>回复中的链接指向：
%1</translation>
    </message>
</context>
<context>
    <name>CodeBlock</name>
    <message>
        <source>code</source>
        <translation>代码</translation>
    </message>
    <message>
        <source>writing…</source>
        <translation>正在输出…</translation>
    </message>
    <message>
        <source>Copied</source>
        <translation>已复制</translation>
    </message>
    <message>
        <source>Copy</source>
        <translation>复制</translation>
    </message>
    <message>
        <source>Copy %1 code</source>
        <translation>复制 %1 代码</translation>
    </message>
    <message>
        <source>Copy code</source>
        <translation>复制代码</translation>
    </message>
    <message>
        <source>Code</source>
        <translation>代码</translation>
    </message>
    <message>
        <source>Scroll the code sideways</source>
        <translation>横向滚动代码</translation>
    </message>
</context>
<context>
    <name>Composer</name>
    <message>
        <source>Message Hearth…</source>
        <translation>给 Hearth 发消息…</translation>
    </message>
    <message>
        <source>Message</source>
        <translation>消息</translation>
    </message>
    <message>
        <source>Enter sends; Shift+Enter starts a new line</source>
        <translation>按 Enter 发送，按 Shift+Enter 换行</translation>
    </message>
    <message>
        <source>Stop</source>
        <translation>停止</translation>
    </message>
    <message>
        <source>Send</source>
        <translation>发送</translation>
    </message>
    <message>
        <source>Stop the reply</source>
        <translation>停止回复</translation>
    </message>
    <message>
        <source>Send the message</source>
        <translation>发送消息</translation>
    </message>
</context>
<context>
    <name>ConnectionDialog</name>
    <message>
        <source>Edit the server</source>
        <translation>编辑服务器</translation>
    </message>
    <message>
        <source>Add a server</source>
        <translation>添加服务器</translation>
    </message>
    <message>
        <source>Address</source>
        <translation>地址</translation>
    </message>
    <message>
        <source>Base URL of the server</source>
        <translation>服务器的基础 URL</translation>
    </message>
    <message>
        <source>Replies are asked for at %1</source>
        <translation>回复将请求自 %1</translation>
    </message>
    <message>
        <source>vLLM listens on port 8000, SGLang on 30000, llama-server on 8080; the API is under /v1.</source>
        <translation>vLLM 监听 8000 端口，SGLang 监听 30000，llama-server 监听 8080；API 位于 /v1 下。</translation>
    </message>
    <message>
        <source>API key</source>
        <translation>API 密钥</translation>
    </message>
    <message>
        <source>(saved in the keyring)</source>
        <translation>（已保存在密钥环中）</translation>
    </message>
    <message>
        <source>None (the server&apos;s --api-key, if it has one)</source>
        <translation>无（如果服务器设置了 --api-key，请填写）</translation>
    </message>
    <message>
        <source>Forget the saved key</source>
        <translation>删除已保存的密钥</translation>
    </message>
    <message>
        <source>Kept in the system keyring, never in a file.</source>
        <translation>保存在系统密钥环中，绝不写入文件。</translation>
    </message>
    <message>
        <source>Model</source>
        <translation>模型</translation>
    </message>
    <message>
        <source>Fetch models</source>
        <translation>获取模型列表</translation>
    </message>
    <message>
        <source>Name</source>
        <translation>名称</translation>
    </message>
    <message>
        <source>As the picker shows it (the server&apos;s address if empty)</source>
        <translation>在选择器中显示的名称（留空则使用服务器地址）</translation>
    </message>
    <message>
        <source>Name of the connection</source>
        <translation>连接名称</translation>
    </message>
    <message>
        <source>Close</source>
        <translation>关闭</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <source>Save</source>
        <translation>保存</translation>
    </message>
    <message>
        <source>Save and use</source>
        <translation>保存并使用</translation>
    </message>
</context>
<context>
    <name>ConnectionEditor</name>
    <message>
        <source>The server lists no models.</source>
        <translation>服务器没有列出任何模型。</translation>
    </message>
    <message>
        <source>This address is plain HTTP: the API key and your messages cross the network unencrypted. Use https:// if the server offers it.</source>
        <translation>此地址使用明文 HTTP：API 密钥和你的消息将以未加密的方式在网络上传输。如果服务器支持，请使用 https://。</translation>
    </message>
    <message>
        <source>The saved API key will be sent to this new address.</source>
        <translation>已保存的 API 密钥将被发送到这个新地址。</translation>
    </message>
</context>
<context>
    <name>ConnectionRow</name>
    <message>
        <source>%1: %2 on %3</source>
        <translation>%1：%3 上的 %2</translation>
    </message>
    <message>
        <source>In use</source>
        <translation>使用中</translation>
    </message>
    <message>
        <source>API key</source>
        <translation>有 API 密钥</translation>
    </message>
    <message>
        <source>no API key</source>
        <translation>无 API 密钥</translation>
    </message>
    <message>
        <source>Edit</source>
        <translation>编辑</translation>
    </message>
    <message>
        <source>Edit %1</source>
        <translation>编辑 %1</translation>
    </message>
    <message>
        <source>Remove</source>
        <translation>移除</translation>
    </message>
    <message>
        <source>Remove %1</source>
        <translation>移除 %1</translation>
    </message>
    <message>
        <source>Disconnect</source>
        <translation>断开</translation>
    </message>
    <message>
        <source>Use</source>
        <translation>使用</translation>
    </message>
    <message>
        <source>Stop using %1</source>
        <translation>停止使用 %1</translation>
    </message>
    <message>
        <source>Use %1</source>
        <translation>使用 %1</translation>
    </message>
</context>
<context>
    <name>ConversationList</name>
    <message>
        <source>Hearth</source>
        <translation>Hearth</translation>
    </message>
    <message>
        <source>Done</source>
        <translation>完成</translation>
    </message>
    <message>
        <source>Select</source>
        <translation>选择</translation>
    </message>
    <message>
        <source>Stop selecting conversations</source>
        <translation>结束选择对话</translation>
    </message>
    <message>
        <source>Select conversations</source>
        <translation>选择对话</translation>
    </message>
    <message>
        <source>New chat</source>
        <translation>新对话</translation>
    </message>
    <message>
        <source>Start a new chat</source>
        <translation>开始新对话</translation>
    </message>
    <message>
        <source>Search conversations</source>
        <translation>搜索对话</translation>
    </message>
    <message>
        <source>Conversations</source>
        <translation>对话列表</translation>
    </message>
    <message>
        <source>Select %1</source>
        <translation>选择 %1</translation>
    </message>
    <message>
        <source>More for %1</source>
        <translation>%1 的更多操作</translation>
    </message>
    <message>
        <source>Rename…</source>
        <translation>重命名…</translation>
    </message>
    <message>
        <source>Delete…</source>
        <translation>删除…</translation>
    </message>
    <message>
        <source>No conversation matches.</source>
        <translation>没有匹配的对话。</translation>
    </message>
    <message>
        <source>No conversations yet.</source>
        <translation>还没有对话。</translation>
    </message>
    <message>
        <source>Delete %1 selected</source>
        <translation>删除所选的 %1 个</translation>
    </message>
    <message>
        <source>Rename conversation</source>
        <translation>重命名对话</translation>
    </message>
    <message>
        <source>New name</source>
        <translation>新名称</translation>
    </message>
    <message>
        <source>Delete?</source>
        <translation>要删除吗？</translation>
    </message>
    <message>
        <source>Delete</source>
        <translation>删除</translation>
    </message>
    <message>
        <source>Delete for good</source>
        <translation>永久删除</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <source>Keep it</source>
        <translation>保留</translation>
    </message>
    <message>
        <source>“%1” and all its messages will be deleted. This cannot be undone.</source>
        <translation>“%1”及其所有消息都将被删除。此操作无法撤销。</translation>
    </message>
    <message>
        <source>%1 conversations and all their messages will be deleted. This cannot be undone.</source>
        <translation>%1 个对话及其所有消息都将被删除。此操作无法撤销。</translation>
    </message>
    <message>
        <source>Import</source>
        <translation>导入</translation>
    </message>
    <message>
        <source>Import a conversation from a JSON export</source>
        <translation>从 JSON 导出文件导入对话</translation>
    </message>
    <message>
        <source>Export as Markdown…</source>
        <translation>导出为 Markdown…</translation>
    </message>
    <message>
        <source>Export as JSON…</source>
        <translation>导出为 JSON…</translation>
    </message>
    <message>
        <source>Open the library of models</source>
        <translation>打开模型库</translation>
    </message>
    <message>
        <source>Library: models to download</source>
        <translation>模型库：可下载的模型</translation>
    </message>
</context>
<context>
    <name>ConversationListModel</name>
    <message>
        <source>New chat</source>
        <translation>新对话</translation>
    </message>
</context>
<context>
    <name>DeviceModel</name>
    <message>
        <source>GPU</source>
        <translation>GPU</translation>
    </message>
    <message>
        <source>CPU</source>
        <translation>CPU</translation>
    </message>
    <message>
        <source>Memory size unknown</source>
        <translation>内存大小未知</translation>
    </message>
    <message>
        <source>%1 total · %2 free</source>
        <translation>共 %1 · 可用 %2</translation>
    </message>
    <message>
        <source>%1 GiB</source>
        <translation>%1 GiB</translation>
    </message>
</context>
<context>
    <name>DeviceRow</name>
    <message>
        <source>Compute %1</source>
        <translation>计算能力 %1</translation>
    </message>
</context>
<context>
    <name>DeviceStatus</name>
    <message>
        <source>This build of Hearth has no GPU support</source>
        <translation>此版本的 Hearth 不支持 GPU</translation>
    </message>
    <message>
        <source>No NVIDIA driver found</source>
        <translation>未找到 NVIDIA 驱动程序</translation>
    </message>
    <message>
        <source>The NVIDIA driver is installed but not working</source>
        <translation>NVIDIA 驱动程序已安装，但无法正常工作</translation>
    </message>
    <message>
        <source>The NVIDIA driver is too old for Hearth&apos;s GPU support</source>
        <translation>NVIDIA 驱动程序版本过旧，无法使用 Hearth 的 GPU 支持</translation>
    </message>
    <message>
        <source>No NVIDIA graphics card found</source>
        <translation>未找到 NVIDIA 显卡</translation>
    </message>
    <message>
        <source>Hearth&apos;s GPU support belongs to a different version of Hearth</source>
        <translation>Hearth 的 GPU 支持组件与当前 Hearth 版本不匹配</translation>
    </message>
    <message>
        <source>Hearth&apos;s GPU support could not be loaded</source>
        <translation>无法加载 Hearth 的 GPU 支持组件</translation>
    </message>
    <message>
        <source>The NVIDIA graphics card can&apos;t be used right now</source>
        <translation>NVIDIA 显卡暂时无法使用</translation>
    </message>
    <message>
        <source>%1 — Hearth will run on the CPU (slower).</source>
        <translation>%1——Hearth 将在 CPU 上运行（速度较慢）。</translation>
    </message>
</context>
<context>
    <name>Diagnostics</name>
    <message>
        <source>Loading the model failed: %1</source>
        <translation>模型加载失败：%1</translation>
    </message>
    <message>
        <source>The reply failed: %1</source>
        <translation>回复失败：%1</translation>
    </message>
</context>
<context>
    <name>DownloadList</name>
    <message>
        <source>Downloads</source>
        <translation>下载</translation>
    </message>
</context>
<context>
    <name>DownloadListModel</name>
    <message>
        <source>%1 needs the %2 architecture, which this Hearth does not run yet</source>
        <translation>%1 需要 %2 架构，此版本的 Hearth 尚不支持</translation>
    </message>
    <message>
        <source>downloads are not available in this run</source>
        <translation>本次运行无法下载</translation>
    </message>
    <message>
        <source>Downloading: %1 · %2%</source>
        <translation>正在下载：%1 · %2%</translation>
    </message>
    <message>
        <source>Downloading: %1</source>
        <translation>正在下载：%1</translation>
    </message>
</context>
<context>
    <name>DownloadQueue</name>
    <message>
        <source>already in the models folder, and not replaced: %1</source>
        <translation>模型文件夹中已有同名文件，不会覆盖：%1</translation>
    </message>
    <message>
        <source>not enough free disk space in %1: %2 needed, %3 free</source>
        <translation>%1 的磁盘空间不足：需要 %2，可用 %3</translation>
    </message>
</context>
<context>
    <name>DownloadRow</name>
    <message>
        <source>%1: %2</source>
        <translation>%1：%2</translation>
    </message>
    <message>
        <source>Pause</source>
        <translation>暂停</translation>
    </message>
    <message>
        <source>Pause the download of %1</source>
        <translation>暂停下载 %1</translation>
    </message>
    <message>
        <source>Retry</source>
        <translation>重试</translation>
    </message>
    <message>
        <source>Resume</source>
        <translation>继续</translation>
    </message>
    <message>
        <source>Resume the download of %1</source>
        <translation>继续下载 %1</translation>
    </message>
    <message>
        <source>Remove from list</source>
        <translation>从列表中移除</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <source>Remove %1 from the list of downloads</source>
        <translation>从下载列表中移除 %1</translation>
    </message>
    <message>
        <source>Cancel the download of %1 and delete what was downloaded</source>
        <translation>取消下载 %1 并删除已下载的部分</translation>
    </message>
</context>
<context>
    <name>DownloadSafety</name>
    <message>
        <source>not a valid download address: %1</source>
        <translation>不是有效的下载地址：%1</translation>
    </message>
    <message>
        <source>a download address may not carry a user name or password</source>
        <translation>下载地址不能包含用户名或密码</translation>
    </message>
    <message>
        <source>refusing %1: downloads go over HTTPS (plain HTTP only to this computer)</source>
        <translation>已拒绝 %1：下载必须使用 HTTPS（仅本机地址可用普通 HTTP）</translation>
    </message>
    <message>
        <source>%1: too many folders</source>
        <translation>%1：文件夹层级过多</translation>
    </message>
</context>
<context>
    <name>DownloadTask</name>
    <message>
        <source>another Hearth is downloading this model</source>
        <translation>另一个 Hearth 正在下载这个模型</translation>
    </message>
    <message>
        <source>%1 changed while it was being checked</source>
        <translation>%1 在校验过程中被改动</translation>
    </message>
    <message>
        <source>the file on the server has %1 bytes, the catalog says %2</source>
        <translation>服务器上的文件为 %1 字节，目录中记录的是 %2 字节</translation>
    </message>
    <message>
        <source>the file on the server is not the one the catalog lists (its SHA-256 differs)</source>
        <translation>服务器上的文件与目录所列的不是同一个（SHA-256 不同）</translation>
    </message>
    <message>
        <source>the file changed on the server; starting it again</source>
        <translation>服务器上的文件已更改，重新开始下载</translation>
    </message>
    <message>
        <source>gave up after %1 tries: %2</source>
        <translation>尝试 %1 次后放弃：%2</translation>
    </message>
    <message>
        <source>%1 cannot be verified: neither the catalog nor the server gives its SHA-256</source>
        <translation>无法校验 %1：目录和服务器都没有提供它的 SHA-256</translation>
    </message>
    <message>
        <source>the downloaded %1 is damaged (its SHA-256 does not match) and was deleted; Retry downloads it again</source>
        <translation>下载的 %1 已损坏（SHA-256 不匹配），已删除；点击“重试”重新下载</translation>
    </message>
    <message>
        <source>cannot move the download into place: %1</source>
        <translation>无法将下载的文件移到位：%1</translation>
    </message>
    <message>
        <source>cannot read %1: %2</source>
        <translation>无法读取 %1：%2</translation>
    </message>
    <message>
        <source>not enough free disk space in %1: %2 needed, %3 free</source>
        <translation>%1 的磁盘空间不足：需要 %2，可用 %3</translation>
    </message>
    <message>
        <source>%1 has %2 bytes on the server: too large for a safetensors index</source>
        <translation>服务器上的 %1 有 %2 字节：作为 safetensors 索引太大</translation>
    </message>
    <message>
        <source>%1 cannot be used: %2</source>
        <translation>无法使用 %1：%2</translation>
    </message>
    <message>
        <source>the downloaded %1 is damaged (its Git object id does not match) and was deleted; Retry downloads it again</source>
        <translation>下载的 %1 已损坏（Git 对象 ID 不匹配），已删除；点击“重试”重新下载</translation>
    </message>
</context>
<context>
    <name>DownloadText</name>
    <message>
        <source>%1 of %2</source>
        <translation>%1 / %2</translation>
    </message>
    <message>
        <source>%1/s</source>
        <translation>%1/秒</translation>
    </message>
    <message>
        <source>%1 s left</source>
        <translation>剩余 %1 秒</translation>
    </message>
    <message>
        <source>%1 min left</source>
        <translation>剩余 %1 分钟</translation>
    </message>
    <message>
        <source>%1 h %2 min left</source>
        <translation>剩余 %1 小时 %2 分钟</translation>
    </message>
    <message>
        <source>Waiting</source>
        <translation>等待中</translation>
    </message>
    <message>
        <source>Downloading</source>
        <translation>正在下载</translation>
    </message>
    <message>
        <source>Checking the part already downloaded</source>
        <translation>正在校验已下载的部分</translation>
    </message>
    <message>
        <source>Paused</source>
        <translation>已暂停</translation>
    </message>
    <message>
        <source>Failed</source>
        <translation>失败</translation>
    </message>
    <message>
        <source>Downloaded</source>
        <translation>已下载</translation>
    </message>
    <message>
        <source>%1 · trying again in %2 s (%3)</source>
        <translation>%1 · %2 秒后重试（%3）</translation>
    </message>
</context>
<context>
    <name>DownloadTransfer</name>
    <message>
        <source>the server redirected to a refused address: %1</source>
        <translation>服务器重定向到了被拒绝的地址：%1</translation>
    </message>
    <message>
        <source>too many redirects</source>
        <translation>重定向次数过多</translation>
    </message>
    <message>
        <source>the server answered HTTP %1</source>
        <translation>服务器返回 HTTP %1</translation>
    </message>
    <message>
        <source>access denied (HTTP %1): this model may need a Hugging Face token with access to it</source>
        <translation>访问被拒绝（HTTP %1）：这个模型可能需要有访问权限的 Hugging Face 令牌</translation>
    </message>
    <message>
        <source>not found on the server (HTTP 404)</source>
        <translation>服务器上找不到该文件（HTTP 404）</translation>
    </message>
    <message>
        <source>the server sent another part of the file than asked for (%1)</source>
        <translation>服务器发送的不是请求的那部分文件（%1）</translation>
    </message>
    <message>
        <source>no data for %1 s</source>
        <translation>%1 秒内没有收到数据</translation>
    </message>
    <message>
        <source>the server has no bytes past %1</source>
        <translation>服务器上的文件在 %1 字节之后没有数据</translation>
    </message>
    <message>
        <source>the connection closed at %1 of %2 bytes</source>
        <translation>连接在 %1 / %2 字节处断开</translation>
    </message>
</context>
<context>
    <name>EngineHost</name>
    <message>
        <source>Reading the model</source>
        <translation>正在读取模型</translation>
    </message>
    <message>
        <source>Converting the weights</source>
        <translation>正在转换权重</translation>
    </message>
    <message>
        <source>Preparing the context</source>
        <translation>正在准备上下文</translation>
    </message>
    <message>
        <source>Uploading to the GPU</source>
        <translation>正在上传到 GPU</translation>
    </message>
    <message>
        <source>Quantizing on the GPU</source>
        <translation>正在 GPU 上量化</translation>
    </message>
</context>
<context>
    <name>EngineWorker</name>
    <message>
        <source>No model is loaded.</source>
        <translation>尚未加载模型。</translation>
    </message>
</context>
<context>
    <name>FallbackNotice</name>
    <message>
        <source>Details: %1</source>
        <translation>详细信息：%1</translation>
    </message>
</context>
<context>
    <name>HfTokenStore</name>
    <message>
        <source>No keyring is available, so the token is not saved: it is used until Hearth quits.</source>
        <translation>没有可用的系统密钥环，因此令牌不会被保存：它只在 Hearth 退出前有效。</translation>
    </message>
</context>
<context>
    <name>LibraryPage</name>
    <message>
        <source>Library</source>
        <translation>模型库</translation>
    </message>
    <message>
        <source>Download %1?</source>
        <translation>下载 %1？</translation>
    </message>
    <message>
        <source>This model is published under the licence &quot;%1&quot;. By downloading it you accept its terms%2.</source>
        <translation>此模型以许可证“%1”发布。下载即表示您接受其条款%2。</translation>
    </message>
    <message>
        <source> (%1)</source>
        <translation>（%1）</translation>
    </message>
    <message>
        <source>Delete %1?</source>
        <translation>删除 %1？</translation>
    </message>
    <message>
        <source>%1 will be removed from the models folder, freeing %2. This cannot be undone.</source>
        <translation>%1 将从模型文件夹中删除，释放 %2。此操作无法撤销。</translation>
    </message>
    <message>
        <source>Estimates for %1 (%2 free of %3) at a context of %4.</source>
        <translation>针对 %1（%3 中可用 %2）、上下文 %4 的估算。</translation>
    </message>
    <message>
        <source>The model catalog could not be read.</source>
        <translation>无法读取模型目录。</translation>
    </message>
    <message>
        <source>Catalog</source>
        <translation>目录</translation>
    </message>
    <message>
        <source>On this computer (%1)</source>
        <translation>本机上的模型（%1）</translation>
    </message>
    <message>
        <source>Models to download</source>
        <translation>可下载的模型</translation>
    </message>
    <message>
        <source>Models folder: %1 · %2 used · %3 free on its disk</source>
        <translation>模型文件夹：%1 · 已用 %2 · 磁盘可用 %3</translation>
    </message>
    <message>
        <source>Models on this computer</source>
        <translation>本机上的模型</translation>
    </message>
    <message>
        <source>Remove from list</source>
        <translation>从列表中移除</translation>
    </message>
    <message>
        <source>Delete…</source>
        <translation>删除…</translation>
    </message>
    <message>
        <source>Delete %1</source>
        <translation>删除 %1</translation>
    </message>
    <message>
        <source>Close</source>
        <translation>关闭</translation>
    </message>
    <message>
        <source>No GPU in use: estimates are for the CPU and its memory (%1 free of %2); speeds from this machine&apos;s memory bandwidth, measured at %3 GB/s.</source>
        <translation>未使用 GPU：估算针对 CPU 及其内存（%2 中空闲 %1）；速度依据本机实测的内存带宽 %3 GB/s。</translation>
    </message>
</context>
<context>
    <name>Licences</name>
    <message>
        <source>Hearth&apos;s own licence is not stated yet (the source has no LICENSE file).</source>
        <translation>Hearth 本身的许可证尚未声明（源代码中没有 LICENSE 文件）。</translation>
    </message>
    <message>
        <source>The user interface, the history database access and the local socket; linked dynamically, so the system&apos;s Qt libraries can be replaced.</source>
        <translation>用户界面、历史记录数据库访问和本地套接字；以动态方式链接，因此可以替换系统中的 Qt 库。</translation>
    </message>
    <message>
        <source>Tokenizers of SentencePiece models.</source>
        <translation>SentencePiece 模型的分词器。</translation>
    </message>
    <message>
        <source>The pre-tokenizer of byte-level BPE models.</source>
        <translation>字节级 BPE 模型的预分词器。</translation>
    </message>
    <message>
        <source>Unicode normalization for byte-level BPE models.</source>
        <translation>字节级 BPE 模型的 Unicode 规范化。</translation>
    </message>
    <message>
        <source>public domain</source>
        <translation>公有领域</translation>
    </message>
    <message>
        <source>The chat history (through Qt&apos;s SQLite driver).</source>
        <translation>聊天记录（通过 Qt 的 SQLite 驱动）。</translation>
    </message>
    <message>
        <source>Markdown in replies.</source>
        <translation>回复中的 Markdown。</translation>
    </message>
    <message>
        <source>Model configuration files.</source>
        <translation>模型配置文件。</translation>
    </message>
    <message>
        <source>NVIDIA CUDA Toolkit EULA</source>
        <translation>NVIDIA CUDA Toolkit 最终用户许可协议</translation>
    </message>
    <message>
        <source>The GPU backend: redistributable parts of the CUDA Toolkit.</source>
        <translation>GPU 后端：CUDA Toolkit 中可再分发的部分。</translation>
    </message>
    <message>
        <source>not stated in the model&apos;s files</source>
        <translation>模型文件中未注明</translation>
    </message>
    <message>
        <source>The loaded model. Its licence governs what you may do with it and its output.</source>
        <translation>已加载的模型。能如何使用它及其输出，由它的许可证决定。</translation>
    </message>
    <message>
        <source>The API server (Settings → API server).</source>
        <translation>API 服务器（设置 → API 服务器）。</translation>
    </message>
    <message>
        <source>Loaded with the system&apos;s cpp-httplib; the API server itself speaks plain HTTP.</source>
        <translation>随系统的 cpp-httplib 一同加载；API 服务器本身只使用普通 HTTP。</translation>
    </message>
</context>
<context>
    <name>LocalServer</name>
    <message>
        <source>Off</source>
        <translation>关闭</translation>
    </message>
    <message>
        <source>Reading the API key from the keyring…</source>
        <translation>正在从密钥环读取 API 密钥…</translation>
    </message>
    <message>
        <source>%1 and from other machines (API key required)</source>
        <translation>%1，其他机器也可访问（需要 API 密钥）</translation>
    </message>
    <message>
        <source>Listening on %1: load a model to answer requests.</source>
        <translation>正在 %1 上监听：加载模型后才能响应请求。</translation>
    </message>
    <message>
        <source>Serving %1 on %2</source>
        <translation>正在 %2 上提供 %1</translation>
    </message>
    <message>
        <source>Serving other machines needs an API key: save one first.</source>
        <translation>向其他机器提供服务需要 API 密钥：请先保存一个。</translation>
    </message>
    <message>
        <source>Port %1 is in use by another program: choose another port.</source>
        <translation>端口 %1 已被其他程序占用：请换一个端口。</translation>
    </message>
</context>
<context>
    <name>Main</name>
    <message>
        <source>Hearth</source>
        <translation>Hearth</translation>
    </message>
    <message>
        <source>%1 — Hearth</source>
        <translation>%1 — Hearth</translation>
    </message>
    <message>
        <source>New chat</source>
        <translation>新对话</translation>
    </message>
    <message>
        <source>Loading…</source>
        <translation>正在加载…</translation>
    </message>
    <message>
        <source>%1 · %2</source>
        <translation>%1 · %2</translation>
    </message>
    <message>
        <source>Choose a model</source>
        <translation>选择模型</translation>
    </message>
    <message>
        <source>Models and quantization: %1</source>
        <translation>模型与量化：%1</translation>
    </message>
    <message>
        <source>Chat options</source>
        <translation>对话选项</translation>
    </message>
    <message>
        <source>Settings</source>
        <translation>设置</translation>
    </message>
    <message>
        <source>Open the settings</source>
        <translation>打开设置</translation>
    </message>
    <message>
        <source>The chat history could not be opened: %1</source>
        <translation>无法打开聊天记录：%1</translation>
    </message>
    <message>
        <source>Start a new history (keep the old file aside)</source>
        <translation>新建聊天记录（旧文件会保留）</translation>
    </message>
    <message>
        <source>Dismiss</source>
        <translation>关闭</translation>
    </message>
    <message>
        <source>%1… %2 %</source>
        <translation>%1… %2%</translation>
    </message>
    <message>
        <source>The model could not be loaded: %1</source>
        <translation>无法加载模型：%1</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <source>Open another model</source>
        <translation>打开其他模型</translation>
    </message>
    <message>
        <source>Ask anything. Your conversation stays on this computer.</source>
        <translation>尽管问吧。你的对话只保存在这台电脑上。</translation>
    </message>
    <message>
        <source>Message %1…</source>
        <translation>给 %1 发消息…</translation>
    </message>
    <message>
        <source>Open a model to start chatting</source>
        <translation>打开一个模型开始聊天</translation>
    </message>
    <message>
        <source>Open a model</source>
        <translation>打开模型</translation>
    </message>
    <message>
        <source>GGUF models (*.gguf)</source>
        <translation>GGUF 模型 (*.gguf)</translation>
    </message>
    <message>
        <source>All files (*)</source>
        <translation>所有文件 (*)</translation>
    </message>
    <message>
        <source>Open a Hugging Face model folder</source>
        <translation>打开 Hugging Face 模型文件夹</translation>
    </message>
    <message>
        <source>About</source>
        <translation>关于</translation>
    </message>
    <message>
        <source>About Hearth, licences and diagnostics</source>
        <translation>关于 Hearth、许可证与诊断信息</translation>
    </message>
    <message>
        <source>Restart Hearth</source>
        <translation>重启 Hearth</translation>
    </message>
    <message>
        <source>conversation</source>
        <translation>对话</translation>
    </message>
    <message>
        <source>Export the conversation</source>
        <translation>导出对话</translation>
    </message>
    <message>
        <source>JSON (*.json)</source>
        <translation>JSON (*.json)</translation>
    </message>
    <message>
        <source>Markdown (*.md)</source>
        <translation>Markdown (*.md)</translation>
    </message>
    <message>
        <source>Import a conversation</source>
        <translation>导入对话</translation>
    </message>
    <message>
        <source>This chat&apos;s system prompt, thinking and sampling</source>
        <translation>本对话的系统提示词、思考与采样</translation>
    </message>
    <message>
        <source>%1: %2</source>
        <translation>%1：%2</translation>
    </message>
    <message>
        <source>Check again</source>
        <translation>重新检查</translation>
    </message>
</context>
<context>
    <name>MarkdownBlocks</name>
    <message>
        <source>image</source>
        <translation>图片</translation>
    </message>
</context>
<context>
    <name>MemoryMeter</name>
    <message>
        <source>Running on the CPU, as chosen in the settings</source>
        <translation>按设置中的选择在 CPU 上运行</translation>
    </message>
    <message>
        <source>This build of Hearth has no GPU support</source>
        <translation>此版本的 Hearth 不支持 GPU</translation>
    </message>
    <message>
        <source>Hearth&apos;s GPU support is not installed</source>
        <translation>未安装 Hearth 的 GPU 支持组件</translation>
    </message>
    <message>
        <source>A CUDA library that Hearth&apos;s GPU support needs is missing</source>
        <translation>缺少 Hearth 的 GPU 支持所需的 CUDA 库</translation>
    </message>
    <message>
        <source>Hearth&apos;s GPU support could not be loaded</source>
        <translation>无法加载 Hearth 的 GPU 支持组件</translation>
    </message>
    <message>
        <source>Hearth&apos;s GPU support belongs to a different version of Hearth</source>
        <translation>Hearth 的 GPU 支持组件与当前 Hearth 版本不匹配</translation>
    </message>
    <message>
        <source>No NVIDIA driver found</source>
        <translation>未找到 NVIDIA 驱动程序</translation>
    </message>
    <message>
        <source>The NVIDIA driver is installed but not working</source>
        <translation>NVIDIA 驱动程序已安装，但无法正常工作</translation>
    </message>
    <message>
        <source>The NVIDIA driver is too old for Hearth&apos;s GPU support</source>
        <translation>NVIDIA 驱动程序版本过旧，无法使用 Hearth 的 GPU 支持</translation>
    </message>
    <message>
        <source>No NVIDIA graphics card found</source>
        <translation>未找到 NVIDIA 显卡</translation>
    </message>
    <message>
        <source>The NVIDIA graphics card can&apos;t be used right now</source>
        <translation>NVIDIA 显卡暂时无法使用</translation>
    </message>
</context>
<context>
    <name>MessageBody</name>
    <message>
        <source>Separator</source>
        <translation>分隔线</translation>
    </message>
</context>
<context>
    <name>MessageDelegate</name>
    <message>
        <source>You: %1</source>
        <translation>你：%1</translation>
    </message>
    <message>
        <source>Edit the message</source>
        <translation>编辑消息</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <source>Send</source>
        <translation>发送</translation>
    </message>
    <message>
        <source>Thinking…</source>
        <translation>正在思考…</translation>
    </message>
    <message>
        <source>Thoughts</source>
        <translation>思考过程</translation>
    </message>
    <message>
        <source>Hide the thinking</source>
        <translation>隐藏思考过程</translation>
    </message>
    <message>
        <source>Show the thinking</source>
        <translation>显示思考过程</translation>
    </message>
    <message>
        <source>Thinking: %1</source>
        <translation>思考：%1</translation>
    </message>
    <message>
        <source>Reading the conversation…</source>
        <translation>正在读取对话…</translation>
    </message>
    <message>
        <source>The reply stopped because of an error: %1</source>
        <translation>回复因出错而中断：%1</translation>
    </message>
    <message>
        <source>Previous version</source>
        <translation>上一个版本</translation>
    </message>
    <message>
        <source>%1/%2</source>
        <translation>%1/%2</translation>
    </message>
    <message>
        <source>Next version</source>
        <translation>下一个版本</translation>
    </message>
    <message>
        <source>Copied</source>
        <translation>已复制</translation>
    </message>
    <message>
        <source>Copy</source>
        <translation>复制</translation>
    </message>
    <message>
        <source>Copy the message</source>
        <translation>复制消息</translation>
    </message>
    <message>
        <source>Edit</source>
        <translation>编辑</translation>
    </message>
    <message>
        <source>Edit and resend the message</source>
        <translation>编辑并重新发送消息</translation>
    </message>
    <message>
        <source>Regenerate</source>
        <translation>重新生成</translation>
    </message>
    <message>
        <source>Write this reply again</source>
        <translation>重新生成这条回复</translation>
    </message>
    <message>
        <source>stopped</source>
        <translation>已停止</translation>
    </message>
    <message>
        <source>interrupted</source>
        <translation>已中断</translation>
    </message>
    <message>
        <source>length limit</source>
        <translation>达到长度上限</translation>
    </message>
    <message>
        <source>context full</source>
        <translation>上下文已满</translation>
    </message>
</context>
<context>
    <name>ModelFitWarning</name>
    <message>
        <source>This model may not fit</source>
        <translation>此模型可能放不下</translation>
    </message>
    <message>
        <source>%1 needs about %2 at the chosen context, more than %3 has free. Loading it may fail or slow everything down.</source>
        <translation>在所选的上下文长度下，%1 大约需要 %2，超过了 %3 的可用内存。加载可能会失败，或让整个系统变慢。</translation>
    </message>
    <message>
        <source>It fits with a context of up to %1 tokens.</source>
        <translation>上下文不超过 %1 个 token 时可以放下。</translation>
    </message>
    <message>
        <source>Use %1 context</source>
        <translation>使用 %1 上下文</translation>
    </message>
    <message>
        <source>Load anyway</source>
        <translation>仍然加载</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
</context>
<context>
    <name>ModelLibrary</name>
    <message>
        <source>%1 is loaded; load another model or close the chat first.</source>
        <translation>%1 正在使用中；请先加载其他模型或关闭对话。</translation>
    </message>
</context>
<context>
    <name>ModelPicker</name>
    <message>
        <source>Models</source>
        <translation>模型</translation>
    </message>
    <message>
        <source>Open a model file</source>
        <translation>打开模型文件</translation>
    </message>
    <message>
        <source>GGUF models (*.gguf)</source>
        <translation>GGUF 模型 (*.gguf)</translation>
    </message>
    <message>
        <source>All files (*)</source>
        <translation>所有文件 (*)</translation>
    </message>
    <message>
        <source>Open a Hugging Face model folder</source>
        <translation>打开 Hugging Face 模型文件夹</translation>
    </message>
    <message>
        <source>Models folder: %1</source>
        <translation>模型文件夹：%1</translation>
    </message>
    <message>
        <source>Rescan</source>
        <translation>重新扫描</translation>
    </message>
    <message>
        <source>Open file…</source>
        <translation>打开文件…</translation>
    </message>
    <message>
        <source>Open folder…</source>
        <translation>打开文件夹…</translation>
    </message>
    <message>
        <source>the CPU</source>
        <translation>CPU</translation>
    </message>
    <message>
        <source>the GPU</source>
        <translation>GPU</translation>
    </message>
    <message>
        <source>the best device</source>
        <translation>最合适的设备</translation>
    </message>
    <message>
        <source>Local models</source>
        <translation>本地模型</translation>
    </message>
    <message>
        <source>No models yet. Put .gguf files or Hugging Face folders in the models folder, or open one.</source>
        <translation>还没有模型。请把 .gguf 文件或 Hugging Face 文件夹放进模型文件夹，或者直接打开一个。</translation>
    </message>
    <message>
        <source>Loading progress</source>
        <translation>加载进度</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <source>Close</source>
        <translation>关闭</translation>
    </message>
    <message>
        <source>Estimates for a context of up to %1 tokens on %2 (change it in Settings).</source>
        <translation>以下估算基于 %2 上最多 %1 个 token 的上下文（可在设置中更改）。</translation>
    </message>
    <message>
        <source>On this computer</source>
        <translation>本机</translation>
    </message>
    <message>
        <source>Remote servers (%1)</source>
        <translation>远程服务器（%1）</translation>
    </message>
</context>
<context>
    <name>ModelRow</name>
    <message>
        <source>%1 parameters</source>
        <translation>%1 参数</translation>
    </message>
    <message>
        <source>%1 context</source>
        <translation>%1 上下文</translation>
    </message>
    <message>
        <source>Reading the file…</source>
        <translation>正在读取文件…</translation>
    </message>
    <message>
        <source>Fits on %1 at %2 context: needs about %3</source>
        <translation>在 %2 上下文下可放入 %1：约需 %3</translation>
    </message>
    <message>
        <source>Needs about %1 at %2 context, more than %3 has free; fits up to %4 context</source>
        <translation>在 %2 上下文下约需 %1，超过 %3 的可用内存；最多可用 %4 上下文</translation>
    </message>
    <message>
        <source>Does not fit on %1: needs about %2 at %3 context</source>
        <translation>无法放入 %1：在 %3 上下文下约需 %2</translation>
    </message>
    <message>
        <source>Loaded</source>
        <translation>已加载</translation>
    </message>
    <message>
        <source>Reload</source>
        <translation>重新加载</translation>
    </message>
    <message>
        <source>Load</source>
        <translation>加载</translation>
    </message>
    <message>
        <source>Load %1</source>
        <translation>加载 %1</translation>
    </message>
    <message>
        <source>Fits on %1 at %2 context: needs about %3; on the CPU at most about %4 tokens per second</source>
        <translation>在 %2 上下文下可放入 %1：约需 %3；在 CPU 上每秒最多约 %4 个词元</translation>
    </message>
</context>
<context>
    <name>OpenAi</name>
    <message>
        <source>The answer is not a list of models.</source>
        <translation>返回的内容不是模型列表。</translation>
    </message>
</context>
<context>
    <name>OpenModelPanel</name>
    <message>
        <source>The model could not be loaded.</source>
        <translation>无法加载模型。</translation>
    </message>
    <message>
        <source>Open a model…</source>
        <translation>打开模型…</translation>
    </message>
    <message>
        <source>Open a model file</source>
        <translation>打开模型文件</translation>
    </message>
    <message>
        <source>Folder…</source>
        <translation>文件夹…</translation>
    </message>
    <message>
        <source>Open a Hugging Face model folder</source>
        <translation>打开 Hugging Face 模型文件夹</translation>
    </message>
    <message>
        <source>Models</source>
        <translation>模型</translation>
    </message>
    <message>
        <source>Show the models on this computer</source>
        <translation>显示这台电脑上的模型</translation>
    </message>
    <message>
        <source>Loading the model</source>
        <translation>正在加载模型</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <source>Cancel loading the model</source>
        <translation>取消加载模型</translation>
    </message>
    <message>
        <source>Loading progress</source>
        <translation>加载进度</translation>
    </message>
    <message>
        <source>Get a model</source>
        <translation>获取模型</translation>
    </message>
    <message>
        <source>Open the library of models to download</source>
        <translation>打开可下载模型的模型库</translation>
    </message>
    <message>
        <source>Server…</source>
        <translation>服务器…</translation>
    </message>
    <message>
        <source>Chat with a model on a vLLM, SGLang or other OpenAI-compatible server</source>
        <translation>与 vLLM、SGLang 或其他 OpenAI 兼容服务器上的模型对话</translation>
    </message>
</context>
<context>
    <name>QuantSwitcher</name>
    <message>
        <source>Quantization of %1 (now %2)</source>
        <translation>%1 的量化（当前为 %2）</translation>
    </message>
    <message>
        <source>No other quantization of this model is available: it is already quantized and no other file of it is in your models.</source>
        <translation>没有这个模型的其他量化版本可用：它已经是量化模型，你的模型中也没有它的其他文件。</translation>
    </message>
    <message>
        <source>loaded · %1</source>
        <translation>已加载 · %1</translation>
    </message>
    <message>
        <source>fits · %1</source>
        <translation>可放下 · %1</translation>
    </message>
    <message>
        <source>too big · %1</source>
        <translation>放不下 · %1</translation>
    </message>
    <message>
        <source>Switch to %1, about %2</source>
        <translation>切换到 %1，约 %2</translation>
    </message>
</context>
<context>
    <name>RemoteBackend</name>
    <message>
        <source>%1 does not list the model %2 any more: choose another one in the connection.</source>
        <translation>%1 已不再提供模型 %2：请在连接中选择其他模型。</translation>
    </message>
    <message>
        <source>Checking %1…</source>
        <translation>正在检查 %1…</translation>
    </message>
    <message>
        <source>Connected: %1 serves %2.</source>
        <translation>已连接：%1 提供 %2。</translation>
    </message>
    <message>
        <source>No server is connected.</source>
        <translation>没有连接服务器。</translation>
    </message>
</context>
<context>
    <name>RemoteError</name>
    <message>
        <source>The server reported an error: %1</source>
        <translation>服务器报告了错误：%1</translation>
    </message>
    <message>
        <source>What arrived before is kept.</source>
        <translation>之前收到的内容已保留。</translation>
    </message>
    <message>
        <source>The connection to %1 ended before the reply was complete.</source>
        <translation>与 %1 的连接在回复完成前结束了。</translation>
    </message>
    <message>
        <source>%1 answered with a web page, not an API: is this the API&apos;s address?</source>
        <translation>%1 返回的是网页而不是 API：这是 API 的地址吗？</translation>
    </message>
    <message>
        <source>%1 sent an answer that is not an OpenAI-compatible completion.</source>
        <translation>%1 返回的内容不是 OpenAI 兼容的补全结果。</translation>
    </message>
    <message>
        <source>%1 sent Hearth to another address (HTTP %2 to %3). Use that address as the base URL.</source>
        <translation>%1 将 Hearth 重定向到另一个地址（HTTP %2 到 %3）。请使用该地址作为基础 URL。</translation>
    </message>
    <message>
        <source>%1 refused the API key (HTTP %2). Check the key in the connection.</source>
        <translation>%1 拒绝了 API 密钥（HTTP %2）。请检查连接中的密钥。</translation>
    </message>
    <message>
        <source>%1 needs an API key (HTTP %2). Add it to the connection.</source>
        <translation>%1 需要 API 密钥（HTTP %2）。请在连接中添加。</translation>
    </message>
    <message>
        <source>%1 has nothing at %2 (HTTP 404). The base URL of an OpenAI-compatible server usually ends in /v1.</source>
        <translation>%1 在 %2 处没有内容（HTTP 404）。OpenAI 兼容服务器的基础 URL 通常以 /v1 结尾。</translation>
    </message>
    <message>
        <source>%1 is busy (HTTP %2). Try again in a moment.</source>
        <translation>%1 正忙（HTTP %2）。请稍后再试。</translation>
    </message>
    <message>
        <source>%1 failed to answer (HTTP %2).</source>
        <translation>%1 未能给出回答（HTTP %2）。</translation>
    </message>
    <message>
        <source>%1 refused the request (HTTP %2).</source>
        <translation>%1 拒绝了请求（HTTP %2）。</translation>
    </message>
    <message>
        <source>It answered with a web page, not an API: is this the API&apos;s address?</source>
        <translation>它返回的是网页而不是 API：这是 API 的地址吗？</translation>
    </message>
    <message>
        <source>The server says: %1</source>
        <translation>服务器的说明：%1</translation>
    </message>
    <message>
        <source>%1 sent nothing for %2 seconds; the request was given up.</source>
        <translation>%1 在 %2 秒内没有发送任何内容；已放弃该请求。</translation>
    </message>
    <message>
        <source>Could not connect to %1: nothing is listening there. Is the server running?</source>
        <translation>无法连接到 %1：那里没有服务在监听。服务器在运行吗？</translation>
    </message>
    <message>
        <source>The server %1 was not found. Check the address.</source>
        <translation>找不到服务器 %1。请检查地址。</translation>
    </message>
    <message>
        <source>%1 closed the connection.</source>
        <translation>%1 关闭了连接。</translation>
    </message>
    <message>
        <source>The secure connection to %1 failed: %2</source>
        <translation>与 %1 的安全连接失败：%2</translation>
    </message>
    <message>
        <source>The proxy to %1 failed: %2</source>
        <translation>通往 %1 的代理失败：%2</translation>
    </message>
    <message>
        <source>Could not reach %1: %2</source>
        <translation>无法访问 %1：%2</translation>
    </message>
</context>
<context>
    <name>RemoteList</name>
    <message>
        <source>Chat with a model served elsewhere over the OpenAI API: vLLM or SGLang on a bigger machine, llama-server, or another Hearth. The conversation stays in this computer&apos;s history.</source>
        <translation>通过 OpenAI API 与其他地方提供的模型对话：更大机器上的 vLLM 或 SGLang、llama-server，或另一个 Hearth。对话记录仍保存在本机的历史中。</translation>
    </message>
    <message>
        <source>Add a server…</source>
        <translation>添加服务器…</translation>
    </message>
    <message>
        <source>Remote servers</source>
        <translation>远程服务器</translation>
    </message>
    <message>
        <source>No servers yet. Add one with its address, for example http://gpu-box:8000/v1 for vLLM.</source>
        <translation>还没有服务器。用地址添加一个，例如 vLLM 的 http://gpu-box:8000/v1。</translation>
    </message>
    <message>
        <source>Remove %1?</source>
        <translation>移除 %1？</translation>
    </message>
    <message>
        <source>The connection and its API key are deleted. Conversations held with it stay in the history.</source>
        <translation>连接及其 API 密钥将被删除。通过它进行的对话仍保留在历史中。</translation>
    </message>
    <message>
        <source>Remove</source>
        <translation>移除</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
</context>
<context>
    <name>RemoteUrl</name>
    <message>
        <source>Enter the server&apos;s address, for example http://localhost:8000/v1.</source>
        <translation>请输入服务器地址，例如 http://localhost:8000/v1。</translation>
    </message>
    <message>
        <source>This is not a web address. Enter one like http://localhost:8000/v1.</source>
        <translation>这不是网址。请输入类似 http://localhost:8000/v1 的地址。</translation>
    </message>
    <message>
        <source>Use an http:// or https:// address.</source>
        <translation>请使用 http:// 或 https:// 地址。</translation>
    </message>
    <message>
        <source>Leave the user name and password out of the address; put an API key in its own field.</source>
        <translation>地址中不要包含用户名和密码；API 密钥请填在它自己的字段中。</translation>
    </message>
    <message>
        <source>The base URL cannot have a query (?…) or a fragment (#…).</source>
        <translation>基础 URL 不能包含查询（?…）或片段（#…）。</translation>
    </message>
</context>
<context>
    <name>ServerKey</name>
    <message>
        <source>No keyring is available, so the key is not saved: it is used until Hearth quits.</source>
        <translation>没有可用的密钥环，密钥不会被保存：仅在 Hearth 退出前有效。</translation>
    </message>
</context>
<context>
    <name>SettingsAppearance</name>
    <message>
        <source>Appearance</source>
        <translation>外观</translation>
    </message>
    <message>
        <source>Theme</source>
        <translation>主题</translation>
    </message>
    <message>
        <source>Same as the system</source>
        <translation>跟随系统</translation>
    </message>
    <message>
        <source>Light</source>
        <translation>浅色</translation>
    </message>
    <message>
        <source>Dark</source>
        <translation>深色</translation>
    </message>
    <message>
        <source>Font size</source>
        <translation>字体大小</translation>
    </message>
    <message>
        <source>The size of body text, in pixels; everything else scales with it.</source>
        <translation>正文文字的大小（像素），其他文字随之缩放。</translation>
    </message>
    <message>
        <source>Language</source>
        <translation>语言</translation>
    </message>
</context>
<context>
    <name>SettingsChat</name>
    <message>
        <source>New chats</source>
        <translation>新对话</translation>
    </message>
    <message>
        <source>Temperature</source>
        <translation>温度</translation>
    </message>
    <message>
        <source>Higher is more varied, 0 always picks the likeliest token.</source>
        <translation>越高回答越多样；为 0 时总是选择可能性最大的 token。</translation>
    </message>
    <message>
        <source>Top-k</source>
        <translation>Top-k</translation>
    </message>
    <message>
        <source>Only the k likeliest tokens are considered; 0 turns it off.</source>
        <translation>只考虑可能性最大的 k 个 token；0 表示关闭。</translation>
    </message>
    <message>
        <source>Top-p</source>
        <translation>Top-p</translation>
    </message>
    <message>
        <source>The likeliest tokens whose probabilities add up to p; 1 turns it off.</source>
        <translation>只保留累计概率达到 p 的最可能的 token；1 表示关闭。</translation>
    </message>
    <message>
        <source>Min-p</source>
        <translation>Min-p</translation>
    </message>
    <message>
        <source>Drops tokens less likely than this share of the likeliest one; 0 turns it off.</source>
        <translation>舍弃概率低于最可能 token 的这一比例的 token；0 表示关闭。</translation>
    </message>
    <message>
        <source>Repetition penalty</source>
        <translation>重复惩罚</translation>
    </message>
    <message>
        <source>Above 1 makes recently used tokens less likely; 1 turns it off.</source>
        <translation>大于 1 时降低最近出现过的 token 的概率；1 表示关闭。</translation>
    </message>
    <message>
        <source>Maximum reply length</source>
        <translation>最大回复长度</translation>
    </message>
    <message>
        <source>In tokens, thinking included.</source>
        <translation>以 token 计，包括思考部分。</translation>
    </message>
    <message>
        <source>Seed</source>
        <translation>随机种子</translation>
    </message>
    <message>
        <source>The same seed and settings give the same reply; Random picks a new seed each time.</source>
        <translation>相同的种子和设置会得到相同的回复；选择“随机”则每次使用新的种子。</translation>
    </message>
    <message>
        <source>Random</source>
        <translation>随机</translation>
    </message>
    <message>
        <source>Thinking</source>
        <translation>思考</translation>
    </message>
    <message>
        <source>Models that can think first reason step by step; the thoughts fold away in the reply.</source>
        <translation>支持思考的模型会先逐步推理，思考内容在回复中折叠显示。</translation>
    </message>
    <message>
        <source>Reset sampling to the defaults</source>
        <translation>将采样设置恢复为默认值</translation>
    </message>
    <message>
        <source>Chat template override</source>
        <translation>替换聊天模板</translation>
    </message>
    <message>
        <source>A Jinja template used instead of the model&apos;s own, for models whose template is broken. Leave it empty to use the model&apos;s.</source>
        <translation>用来替代模型自带模板的 Jinja 模板，适用于模板有问题的模型。留空则使用模型自带的模板。</translation>
    </message>
    <message>
        <source>A model that recommends its own sampling (in its generation_config.json or GGUF metadata) starts new chats with those values instead. Each chat can change them in Chat options.</source>
        <translation>如果模型自带推荐的采样设置（在其 generation_config.json 或 GGUF 元数据中），新对话会改用这些值。每个对话都可以在“对话选项”中修改它们。</translation>
    </message>
</context>
<context>
    <name>SettingsDownloads</name>
    <message>
        <source>Downloads</source>
        <translation>下载</translation>
    </message>
    <message>
        <source>Hugging Face token</source>
        <translation>Hugging Face 令牌</translation>
    </message>
    <message>
        <source>Saved in the system keyring. Gated models (Llama) need one.</source>
        <translation>已保存在系统密钥环中。受限模型（Llama）需要令牌。</translation>
    </message>
    <message>
        <source>Gated models (Llama) need one. It is kept in the system keyring, never in a file.</source>
        <translation>受限模型（Llama）需要令牌。令牌保存在系统密钥环中，绝不写入文件。</translation>
    </message>
    <message>
        <source>(saved)</source>
        <translation>（已保存）</translation>
    </message>
    <message>
        <source>Forget</source>
        <translation>清除</translation>
    </message>
    <message>
        <source>Save</source>
        <translation>保存</translation>
    </message>
    <message>
        <source>Download from</source>
        <translation>下载来源</translation>
    </message>
    <message>
        <source>A mirror of Hugging Face; empty: huggingface.co. The environment variable HEARTH_HF_ENDPOINT wins over this.</source>
        <translation>Hugging Face 的镜像地址；留空则使用 huggingface.co。环境变量 HEARTH_HF_ENDPOINT 优先于此设置。</translation>
    </message>
    <message>
        <source>Downloads at once</source>
        <translation>同时下载数</translation>
    </message>
</context>
<context>
    <name>SettingsLoading</name>
    <message>
        <source>Models and memory</source>
        <translation>模型与内存</translation>
    </message>
    <message>
        <source>Context length</source>
        <translation>上下文长度</translation>
    </message>
    <message>
        <source>Tokens the model can keep in mind. Longer needs more memory.</source>
        <translation>模型一次能记住的 token 数。越长，需要的内存越多。</translation>
    </message>
    <message>
        <source>Model default</source>
        <translation>模型默认值</translation>
    </message>
    <message>
        <source>KV cache type</source>
        <translation>KV 缓存类型</translation>
    </message>
    <message>
        <source>f16 and bf16 halve the cache of f32, on the GPU and the CPU alike; f32 keeps results exact.</source>
        <translation>无论在 GPU 还是 CPU 上，f16 和 bf16 的缓存都只有 f32 的一半；f32 的结果最精确。</translation>
    </message>
    <message>
        <source>VRAM budget</source>
        <translation>显存预算</translation>
    </message>
    <message>
        <source>The most video memory Hearth should plan to use. The fit estimates count no more than this.</source>
        <translation>Hearth 计划使用的显存上限。估算能否放下时最多按这个值计算。</translation>
    </message>
    <message>
        <source>No limit</source>
        <translation>不限</translation>
    </message>
    <message>
        <source>VRAM budget in GiB</source>
        <translation>显存预算（GiB）</translation>
    </message>
    <message>
        <source>Device</source>
        <translation>设备</translation>
    </message>
    <message>
        <source>Automatic uses the GPU when one is usable.</source>
        <translation>选择“自动”时，有可用的 GPU 就使用 GPU。</translation>
    </message>
    <message>
        <source>Automatic</source>
        <translation>自动</translation>
    </message>
    <message>
        <source>GPU (CUDA)</source>
        <translation>GPU（CUDA）</translation>
    </message>
    <message>
        <source>CPU</source>
        <translation>CPU</translation>
    </message>
    <message>
        <source>GPU</source>
        <translation>GPU</translation>
    </message>
    <message>
        <source>%1: %2</source>
        <translation>%1：%2</translation>
    </message>
    <message>
        <source>Models folder</source>
        <translation>模型文件夹</translation>
    </message>
    <message>
        <source>Where Hearth looks for .gguf files and Hugging Face folders.</source>
        <translation>Hearth 在这里查找 .gguf 文件和 Hugging Face 文件夹。</translation>
    </message>
    <message>
        <source>Choose…</source>
        <translation>选择…</translation>
    </message>
    <message>
        <source>Choose the models folder</source>
        <translation>选择模型文件夹</translation>
    </message>
</context>
<context>
    <name>SettingsPage</name>
    <message>
        <source>Settings</source>
        <translation>设置</translation>
    </message>
    <message>
        <source>Close</source>
        <translation>关闭</translation>
    </message>
</context>
<context>
    <name>SettingsServer</name>
    <message>
        <source>API server</source>
        <translation>API 服务器</translation>
    </message>
    <message>
        <source>Serve the loaded model on http://127.0.0.1:%1</source>
        <translation>在 http://127.0.0.1:%1 上提供已加载的模型</translation>
    </message>
    <message>
        <source>OpenAI-compatible: chat and text completions under /v1. Requests wait their turn with your own chats.</source>
        <translation>兼容 OpenAI：/v1 下的对话补全与文本补全。请求与你自己的对话依次排队处理。</translation>
    </message>
    <message>
        <source>Serve the loaded model</source>
        <translation>提供已加载的模型</translation>
    </message>
    <message numerus="yes">
        <source>%1 · %n request(s) answered</source>
        <translation>
            <numerusform>%1 · 已响应 %n 个请求</numerusform>
        </translation>
    </message>
    <message>
        <source>Port</source>
        <translation>端口</translation>
    </message>
    <message>
        <source>Let other machines connect</source>
        <translation>允许其他机器连接</translation>
    </message>
    <message>
        <source>Listens on every network interface instead of this computer only. Needs an API key.</source>
        <translation>在所有网络接口上监听，而不只是本机。需要 API 密钥。</translation>
    </message>
    <message>
        <source>API key</source>
        <translation>API 密钥</translation>
    </message>
    <message>
        <source>Clients send it as &quot;Authorization: Bearer KEY&quot; (the OpenAI libraries&apos; api_key). Kept in the system keyring.</source>
        <translation>客户端以 &quot;Authorization: Bearer KEY&quot; 发送它（即 OpenAI 库的 api_key）。保存在系统密钥环中。</translation>
    </message>
    <message>
        <source>(saved)</source>
        <translation>（已保存）</translation>
    </message>
    <message>
        <source>none</source>
        <translation>无</translation>
    </message>
    <message>
        <source>New</source>
        <translation>生成</translation>
    </message>
    <message>
        <source>Fill in a random key: copy it for your clients, then save it.</source>
        <translation>填入一个随机密钥：复制给你的客户端，然后保存。</translation>
    </message>
    <message>
        <source>Forget</source>
        <translation>清除</translation>
    </message>
    <message>
        <source>Save</source>
        <translation>保存</translation>
    </message>
</context>
<context>
    <name>ShardIndex</name>
    <message>
        <source>the index is larger than %1 bytes</source>
        <translation>索引大于 %1 字节</translation>
    </message>
    <message>
        <source>the index is not valid JSON: %1</source>
        <translation>索引不是有效的 JSON：%1</translation>
    </message>
    <message>
        <source>the index has no weight_map naming its shards</source>
        <translation>索引没有列出分片的 weight_map</translation>
    </message>
    <message>
        <source>the index maps the tensor &apos;%1&apos; to no file name</source>
        <translation>索引没有为张量“%1”给出文件名</translation>
    </message>
    <message>
        <source>the index names the shard &apos;%1&apos;: %2</source>
        <translation>索引列出的分片“%1”：%2</translation>
    </message>
    <message>
        <source>the index names the shard &apos;%1&apos;, which is not a .safetensors file</source>
        <translation>索引列出的分片“%1”不是 .safetensors 文件</translation>
    </message>
    <message>
        <source>the index names more than %1 shards</source>
        <translation>索引列出的分片超过 %1 个</translation>
    </message>
    <message>
        <source>%1 cannot be read: %2</source>
        <translation>无法读取 %1：%2</translation>
    </message>
</context>
<context>
    <name>StartOptions</name>
    <message>
        <source>The model you used last is no longer at %1. Open a model to start chatting.</source>
        <translation>上次使用的模型已不在 %1。请打开一个模型开始聊天。</translation>
    </message>
    <message>
        <source>There is no model at %1. Open a model to start chatting.</source>
        <translation>%1 处没有模型。请打开一个模型开始聊天。</translation>
    </message>
</context>
<context>
    <name>StatsBar</name>
    <message>
        <source>Reply statistics</source>
        <translation>回复统计</translation>
    </message>
    <message>
        <source>Decode</source>
        <translation>解码</translation>
    </message>
    <message>
        <source>%1 tok/s</source>
        <translation>%1 tok/s</translation>
    </message>
    <message>
        <source>Prefill</source>
        <translation>预填充</translation>
    </message>
    <message>
        <source>First token</source>
        <translation>首个 token</translation>
    </message>
    <message>
        <source>%1 ms</source>
        <translation>%1 ms</translation>
    </message>
    <message>
        <source>Context</source>
        <translation>上下文</translation>
    </message>
    <message>
        <source>%1 / %2</source>
        <translation>%1 / %2</translation>
    </message>
    <message>
        <source>Decode speed over the reply</source>
        <translation>本次回复中解码速度的变化</translation>
    </message>
</context>
<context>
    <name>StatusView</name>
    <message>
        <source>Welcome to Hearth</source>
        <translation>欢迎使用 Hearth</translation>
    </message>
    <message>
        <source>Chat with AI models that run entirely on this computer.</source>
        <translation>与完全在这台电脑上运行的 AI 模型聊天。</translation>
    </message>
    <message>
        <source>Compute</source>
        <translation>计算设备</translation>
    </message>
    <message>
        <source>Backend: %1</source>
        <translation>后端：%1</translation>
    </message>
    <message>
        <source>Looking for graphics cards…</source>
        <translation>正在查找显卡…</translation>
    </message>
    <message>
        <source>Version %1</source>
        <translation>版本 %1</translation>
    </message>
    <message>
        <source>Your conversations stay on this computer.</source>
        <translation>你的对话只保存在这台电脑上。</translation>
    </message>
</context>
<context>
    <name>Units</name>
    <message>
        <source>%1 GiB</source>
        <translation>%1 GiB</translation>
    </message>
    <message>
        <source>%1 MiB</source>
        <translation>%1 MiB</translation>
    </message>
    <message>
        <source>%1K</source>
        <translation>%1K</translation>
    </message>
</context>
<context>
    <name>VramHistoryChart</name>
    <message>
        <source>Memory used over the last minutes, up to %1</source>
        <translation>最近几分钟的内存用量，最高 %1</translation>
    </message>
    <message>
        <source>now</source>
        <translation>现在</translation>
    </message>
    <message>
        <source>%1 min ago</source>
        <translation>%1 分钟前</translation>
    </message>
</context>
<context>
    <name>VramMeter</name>
    <message>
        <source>Weights</source>
        <translation>权重</translation>
    </message>
    <message>
        <source>KV cache</source>
        <translation>KV 缓存</translation>
    </message>
    <message>
        <source>Recurrent state</source>
        <translation>循环状态</translation>
    </message>
    <message>
        <source>Workspace</source>
        <translation>工作区</translation>
    </message>
    <message>
        <source>CUDA context</source>
        <translation>CUDA 上下文</translation>
    </message>
    <message>
        <source>Other processes</source>
        <translation>其他进程</translation>
    </message>
    <message>
        <source>Other programs</source>
        <translation>其他程序</translation>
    </message>
    <message>
        <source>Free</source>
        <translation>空闲</translation>
    </message>
    <message>
        <source>Memory</source>
        <translation>内存</translation>
    </message>
    <message>
        <source>CPU · %1</source>
        <translation>CPU · %1</translation>
    </message>
    <message>
        <source>waiting for the engine</source>
        <translation>正在等待推理引擎</translation>
    </message>
    <message>
        <source>%1 free of %2</source>
        <translation>可用 %1，共 %2</translation>
    </message>
    <message>
        <source>model uses %1 of %2 RAM</source>
        <translation>模型占用 %1，内存共 %2</translation>
    </message>
    <message>
        <source>%1 RAM</source>
        <translation>内存 %1</translation>
    </message>
    <message>
        <source>Memory: %1, %2</source>
        <translation>内存：%1，%2</translation>
    </message>
    <message>
        <source>%1 · click for details</source>
        <translation>%1 · 点击查看详情</translation>
    </message>
    <message>
        <source>%1 · %2 total</source>
        <translation>%1 · 共 %2</translation>
    </message>
    <message>
        <source>Video memory used by Hearth, last %1 min</source>
        <translation>Hearth 最近 %1 分钟的显存用量</translation>
    </message>
    <message>
        <source>Memory used by Hearth, last %1 min</source>
        <translation>Hearth 最近 %1 分钟的内存用量</translation>
    </message>
    <message>
        <source>Remote · %1</source>
        <translation>远程 · %1</translation>
    </message>
    <message>
        <source>%1 runs on %2: it uses none of this computer&apos;s memory. Below: this computer.</source>
        <translation>%1 运行在 %2 上：不占用本机内存。下方为本机情况。</translation>
    </message>
    <message>
        <source>none used here</source>
        <translation>本机未占用</translation>
    </message>
</context>
</TS>
