// Vector addition: one thread per element, 256 threads per block.
#define N (1 << 20)
#define BLOCK 256

__global__ void vecadd(const float* a, const float* b, float* c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        c[i] = a[i] + b[i];
    }
}

void host() {
    float* a = device_array<float>(N, uniform(0.0f, 1.0f));
    float* b = device_array<float>(N, iota());
    float* c = device_array<float>(N);
    vecadd<<<(N + BLOCK - 1) / BLOCK, BLOCK>>>(a, b, c, N);
}
