// Linked with one engine layer whole and its declared dependencies: building is the test.
int main() { return 0; }
