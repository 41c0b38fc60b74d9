void host() { int x = 3000000000; }
