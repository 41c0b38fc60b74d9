// Histogram with atomics: a private histogram per block in shared memory,
// merged into the global one.
#define BINS 64

__device__ unsigned bin_of(unsigned value) {
    return value % BINS;
}

__global__ void histogram(const unsigned* data, unsigned* bins, int n) {
    __shared__ unsigned local[BINS];
    if (threadIdx.x < BINS) local[threadIdx.x] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
        atomicAdd(&local[bin_of(data[i])], 1);
    }
    __syncthreads();
    if (threadIdx.x < BINS) {
        atomicAdd(&bins[threadIdx.x], local[threadIdx.x]);
    }
}

void host() {
    int n = 65536;
    unsigned* data = device_array<unsigned>(n, randint(0, 1000));
    unsigned* bins = device_array<unsigned>(BINS);
    histogram<<<64, 256, 0>>>(data, bins, n);
}
