// placeholder while the CLI is written
