// The generator `reduction` (size=256, block=256) written by hand, to
// compare the two on the timing model: each block sums 2 x 256 floats, the
// first addition as it loads, then a tree with sequential addressing.
#define BLOCK 256

__global__ void reduce_pairs(const float* in, float* out) {
    __shared__ float partial[BLOCK];
    unsigned tid = threadIdx.x;
    unsigned i = blockIdx.x * (2 * blockDim.x) + tid;
    partial[tid] = in[i] + in[i + blockDim.x];
    __syncthreads();
    for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s) partial[tid] += partial[tid + s];
        __syncthreads();
    }
    if (tid == 0) out[blockIdx.x] = partial[0];
}

void host() {
    unsigned n = 256 * 2048;
    float* in = device_array<float>(n, uniform(0.0f, 1.0f));
    float* out = device_array<float>(n / (2 * BLOCK));
    reduce_pairs<<<n / (2 * BLOCK), BLOCK>>>(in, out);
}
