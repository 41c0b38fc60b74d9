// Matrix transpose three ways: naive (uncoalesced writes), tiled through
// shared memory (bank conflicts on the column reads), and tiled with the
// tile padded by one column (conflict-free).
#define WIDTH 512
#define TILE 32

__global__ void transpose_naive(const float* in, float* out, int width) {
    unsigned x = blockIdx.x * TILE + threadIdx.x;
    unsigned y = blockIdx.y * TILE + threadIdx.y;
    out[x * width + y] = in[y * width + x];
}

__global__ void transpose_tiled(const float* __restrict__ in, float* __restrict__ out, int width) {
    __shared__ float tile[TILE][TILE];
    int x = blockIdx.x * TILE + threadIdx.x;
    int y = blockIdx.y * TILE + threadIdx.y;
    tile[threadIdx.y][threadIdx.x] = in[y * width + x];
    __syncthreads();
    x = blockIdx.y * TILE + threadIdx.x;
    y = blockIdx.x * TILE + threadIdx.y;
    out[y * width + x] = tile[threadIdx.x][threadIdx.y];
}

__global__ void transpose_padded(const float* in, float* out, int width) {
    __shared__ float tile[TILE][TILE + 1];  /* one column of padding */
    int x = blockIdx.x * TILE + threadIdx.x;
    int y = blockIdx.y * TILE + threadIdx.y;
    tile[threadIdx.y][threadIdx.x] = in[y * width + x];
    __syncthreads();
    x = blockIdx.y * TILE + threadIdx.x;
    y = blockIdx.x * TILE + threadIdx.y;
    out[y * width + x] = tile[threadIdx.x][threadIdx.y];
}

void host() {
    float* in = device_array<float>(WIDTH * WIDTH, uniform(-1.0f, 1.0f));
    float* naive = device_array<float>(WIDTH * WIDTH);
    float* tiled = device_array<float>(WIDTH * WIDTH);
    float* padded = device_array<float>(WIDTH * WIDTH);
    dim3 grid(WIDTH / TILE, WIDTH / TILE);
    dim3 block(TILE, TILE);
    transpose_naive<<<grid, block>>>(in, naive, WIDTH);
    transpose_tiled<<<grid, block>>>(in, tiled, WIDTH);
    transpose_padded<<<dim3(WIDTH / TILE, WIDTH / TILE), dim3(TILE, TILE, 1)>>>(in, padded, WIDTH);
}
