// A 200-line kernel for the compile-and-run benchmark (issue 41: compiling
// and functionally running a 200-line kernel with 1 M warp instructions
// takes at most 1 s natively). It mixes what students write: device
// functions, loops, divergent branches, shared memory, atomics, division.
#define BLOCK 128
#define N (BLOCK * 192)

__device__ float smooth(float x, float y) {
    float t = x * 0.5f + y * 0.25f;
    if (t > 1.0f) {
        t = t - 1.0f;
    }
    return t;
}

__device__ int mix(int a, int b) {
    int r = (a ^ b) + (a << 3) - (b >> 2);
    return r % 1021;
}

__global__ void long_kernel(const float* x, const int* k, float* y, int* h, int n) {
    __shared__ float tile[BLOCK];
    __shared__ int counts[16];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int t = threadIdx.x;
    if (t < 16) counts[t] = 0;
    float acc = 0.0f;
    int key = 0;
    if (i < n) {
        acc = x[i];
        key = k[i];
    }
    tile[t] = acc;
    __syncthreads();
    // Step 0: neighbours through shared memory, then integer mixing.
    {
        float left = tile[(t + BLOCK - 1) % BLOCK];
        float right = tile[(t + 1) % BLOCK];
        acc = smooth(acc + left, right);
        key = mix(key, t + 0);
        if (key % 2 == 0) {
            acc = acc * 0.75f + 0.0f / 64.0f;
        } else {
            acc = acc - (float)(key & 7) * 0.01f;
        }
        __syncthreads();
        tile[t] = acc;
        __syncthreads();
    }
    // Step 1: neighbours through shared memory, then integer mixing.
    {
        float left = tile[(t + BLOCK - 2) % BLOCK];
        float right = tile[(t + 2) % BLOCK];
        acc = smooth(acc + left, right);
        key = mix(key, t + 1);
        if (key % 3 == 0) {
            acc = acc * 0.75f + 1.0f / 64.0f;
        } else {
            acc = acc - (float)(key & 7) * 0.01f;
        }
        __syncthreads();
        tile[t] = acc;
        __syncthreads();
    }
    // Step 2: neighbours through shared memory, then integer mixing.
    {
        float left = tile[(t + BLOCK - 3) % BLOCK];
        float right = tile[(t + 3) % BLOCK];
        acc = smooth(acc + left, right);
        key = mix(key, t + 2);
        if (key % 4 == 0) {
            acc = acc * 0.75f + 2.0f / 64.0f;
        } else {
            acc = acc - (float)(key & 7) * 0.01f;
        }
        __syncthreads();
        tile[t] = acc;
        __syncthreads();
    }
    // Step 3: neighbours through shared memory, then integer mixing.
    {
        float left = tile[(t + BLOCK - 4) % BLOCK];
        float right = tile[(t + 4) % BLOCK];
        acc = smooth(acc + left, right);
        key = mix(key, t + 3);
        if (key % 2 == 0) {
            acc = acc * 0.75f + 3.0f / 64.0f;
        } else {
            acc = acc - (float)(key & 7) * 0.01f;
        }
        __syncthreads();
        tile[t] = acc;
        __syncthreads();
    }
    // Step 4: neighbours through shared memory, then integer mixing.
    {
        float left = tile[(t + BLOCK - 5) % BLOCK];
        float right = tile[(t + 5) % BLOCK];
        acc = smooth(acc + left, right);
        key = mix(key, t + 4);
        if (key % 3 == 0) {
            acc = acc * 0.75f + 4.0f / 64.0f;
        } else {
            acc = acc - (float)(key & 7) * 0.01f;
        }
        __syncthreads();
        tile[t] = acc;
        __syncthreads();
    }
    // Step 5: neighbours through shared memory, then integer mixing.
    {
        float left = tile[(t + BLOCK - 1) % BLOCK];
        float right = tile[(t + 6) % BLOCK];
        acc = smooth(acc + left, right);
        key = mix(key, t + 5);
        if (key % 4 == 0) {
            acc = acc * 0.75f + 5.0f / 64.0f;
        } else {
            acc = acc - (float)(key & 7) * 0.01f;
        }
        __syncthreads();
        tile[t] = acc;
        __syncthreads();
    }
    // Step 6: neighbours through shared memory, then integer mixing.
    {
        float left = tile[(t + BLOCK - 2) % BLOCK];
        float right = tile[(t + 7) % BLOCK];
        acc = smooth(acc + left, right);
        key = mix(key, t + 6);
        if (key % 2 == 0) {
            acc = acc * 0.75f + 6.0f / 64.0f;
        } else {
            acc = acc - (float)(key & 7) * 0.01f;
        }
        __syncthreads();
        tile[t] = acc;
        __syncthreads();
    }
    // Step 7: neighbours through shared memory, then integer mixing.
    {
        float left = tile[(t + BLOCK - 3) % BLOCK];
        float right = tile[(t + 1) % BLOCK];
        acc = smooth(acc + left, right);
        key = mix(key, t + 7);
        if (key % 3 == 0) {
            acc = acc * 0.75f + 7.0f / 64.0f;
        } else {
            acc = acc - (float)(key & 7) * 0.01f;
        }
        __syncthreads();
        tile[t] = acc;
        __syncthreads();
    }
    // Step 8: neighbours through shared memory, then integer mixing.
    {
        float left = tile[(t + BLOCK - 4) % BLOCK];
        float right = tile[(t + 2) % BLOCK];
        acc = smooth(acc + left, right);
        key = mix(key, t + 8);
        if (key % 4 == 0) {
            acc = acc * 0.75f + 8.0f / 64.0f;
        } else {
            acc = acc - (float)(key & 7) * 0.01f;
        }
        __syncthreads();
        tile[t] = acc;
        __syncthreads();
    }
    // Step 9: neighbours through shared memory, then integer mixing.
    {
        float left = tile[(t + BLOCK - 5) % BLOCK];
        float right = tile[(t + 3) % BLOCK];
        acc = smooth(acc + left, right);
        key = mix(key, t + 9);
        if (key % 2 == 0) {
            acc = acc * 0.75f + 9.0f / 64.0f;
        } else {
            acc = acc - (float)(key & 7) * 0.01f;
        }
        __syncthreads();
        tile[t] = acc;
        __syncthreads();
    }
    for (int r = 0; r < 4; r++) {
        acc = fabsf(acc) + sqrtf((float)(r + 1));
    }
    atomicAdd(&counts[key & 15], 1);
    __syncthreads();
    if (i < n) {
        y[i] = acc;
    }
    if (t < 16) {
        atomicAdd(&h[t], counts[t]);
    }
}

void host() {
    float* x = device_array<float>(N, uniform(0.0f, 2.0f));
    int* k = device_array<int>(N, randint(0, 100000));
    float* y = device_array<float>(N);
    int* h = device_array<int>(16);
    long_kernel<<<N / BLOCK, BLOCK>>>(x, k, y, h, N);
}
