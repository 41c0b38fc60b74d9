__global__ void k(float* p, int n) {
    for (int i = threadIdx.x; i < n; i += blockDim.x) {
        if (i % 2) continue; else break;
    }
}
void host() { float* a = device_array<float>(8, fill(2)); k<<<dim3(1), dim3(8, 1, 1), 64>>>(a, 8u); }
