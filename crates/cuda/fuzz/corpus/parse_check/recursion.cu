__device__ int f(int n) { return n <= 1 ? 1 : n * f(n - 1); }
void host() {}
