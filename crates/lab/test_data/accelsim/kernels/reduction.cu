// Tree reduction in shared memory, in the divergent form (interleaved
// threads) and the non-divergent one (sequential addressing).
#define BLOCK 256

__global__ void reduce_divergent(const int* in, int* out, unsigned n) {
    __shared__ int partial[BLOCK];
    unsigned tid = threadIdx.x;
    unsigned i = blockIdx.x * blockDim.x + tid;
    partial[tid] = i < n ? in[i] : 0;
    __syncthreads();
    for (unsigned s = 1; s < blockDim.x; s *= 2) {
        if (tid % (2 * s) == 0) {
            partial[tid] += partial[tid + s];
        }
        __syncthreads();
    }
    if (tid == 0) atomicAdd(out, partial[0]);
}

__global__ void reduce_sequential(const int* in, int* out, unsigned n) {
    __shared__ int partial[BLOCK];
    unsigned tid = threadIdx.x;
    unsigned i = blockIdx.x * blockDim.x + tid;
    partial[tid] = i < n ? in[i] : 0;
    __syncthreads();
    for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s) partial[tid] += partial[tid + s];
        __syncthreads();
    }
    if (tid == 0) {
        atomicAdd(&out[0], partial[0]);
    }
}

void host() {
    unsigned n = 1 << 20;
    int* in = device_array<int>(n, randint(-100, 100));
    int* sum = device_array<int>(2, zeros());
    for (int variant = 0; variant < 2; variant++) {
        if (variant == 0) {
            reduce_divergent<<<n / BLOCK, BLOCK>>>(in, sum, n);
        } else {
            reduce_sequential<<<n / BLOCK, BLOCK>>>(in, sum + 1, n);
        }
    }
}
