// Lab 4, step 4b: the transpose through a tile of shared memory. A block
// reads a 32 x 32 tile row by row (coalesced), waits for the whole tile,
// then writes the transposed tile row by row (coalesced too): the column
// walk now happens in shared memory, in tile[threadIdx.x][threadIdx.y].
#define WIDTH 512
#define TILE 32

__global__ void transpose_tiled(const float* in, float* out, int width) {
    __shared__ float tile[TILE][TILE];
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
    float* out = device_array<float>(WIDTH * WIDTH);
    transpose_tiled<<<dim3(WIDTH / TILE, WIDTH / TILE), dim3(TILE, TILE)>>>(in, out, WIDTH);
}
