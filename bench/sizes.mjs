// The sizes of `npm run bench`'s workloads, in one place. With
// BENCH_SMOKE=1 every group gets a tiny workload and one run: each page and
// script of the benchmark is loaded and run once, in seconds, on the package
// as built (no setup, no build), writing into BENCH_OUT (default
// bench-results/smoke/, apart from the real workloads and results).
// tests/js/bench_smoke.test.mjs runs it that way under `npm test`, so the
// benchmark cannot break unseen; its figures mean nothing.
export const SMOKE = process.env.BENCH_SMOKE === '1';

/** `full` for the benchmark, `smoke` for the smoke run. */
const pick = (full, smoke) => (SMOKE ? smoke : full);
const runs = pick(Number(process.env.BENCH_RUNS || 5), 1);

export const SIZES = {
  /** Measured runs of each row (after a warm-up). */
  runs,
  /** `conversation()` options of the big and the many workload. */
  big: pick({ count: 100, images: 30, imageB64: 1 << 20 }, { count: 10, images: 3, imageB64: 8 * 1024 }),
  many: pick({ count: 1000, images: 300, imageB64: 50 * 1024, seed: 2 }, { count: 20, images: 4, imageB64: 4 * 1024, seed: 2 }),
  /** Base64 characters of the image each re-sent turn adds. */
  steadyImage: pick(1 << 20, 16 * 1024), // over sanitizeToolResult's threshold (10240)
  /** The photo the fitting rows fit: width, height (larger than the model takes). */
  photo: pick([4000, 3000], [1800, 1350]),
  /** The agent chat the app keeps: messages, and turns per run. */
  chat: { messages: pick(2000, 40), turnsPerRun: pick(10, 1), otherRecords: pick(5000, 20) },
  /** bench/redis.mjs: screenshots of the chat, other records in the store. */
  redis: { shots: pick(30, 3), others: pick(20000, 100) },
  /** bench/cache.mjs: the window session's turns; the limit session's turns and the turn it is counted from. */
  cache: { window: pick(40, 4), limit: pick(150, 6), limitFrom: pick(100, 3), imageB64: pick(1 << 20, 8 * 1024), screen: pick([1280, 800], [128, 80]) },
  /** bench/offload.mjs: turns (one new screenshot each) and its base64 characters. */
  offload: { turns: pick(50, 8), imageB64: pick(2 * 1024 * 1024, 8 * 1024) },
  /**
   * bench/proxy.mjs: the agent chat's messages and timed turns, the screenshot chat's
   * screenshots and their base64 characters, the computer-use session's
   * turns and their screenshots' base64 characters.
   */
  proxy: {
    chat: pick(2000, 40), chatTurns: pick(40, 2), shots: pick(30, 3), shotB64: pick(1 << 20, 8 * 1024),
    session: pick(50, 4), sessionB64: pick(2 << 20, 8 * 1024),
  },
  /** bench/loops.mjs: the loop's steps and each screenshot's base64 characters. */
  loops: { steps: pick(50, 5), shotB64: pick(1 << 20, 8 * 1024) },
  /** The ms a long-task page settles before its measurement. */
  settleMs: pick(1000, 0),
  /**
   * bench/markdown.mjs: the inputs' two sizes, the least runs, the least ms
   * a sample lasts, and how many of the shapes (each starts a worker for
   * commonmark.js; the smoke run takes the first few).
   */
  markdown: { sizes: pick([100_000, 200_000], [2_000, 4_000]), runs: pick(Math.max(runs, 7), 1), sampleMs: pick(20, 1), shapes: pick(Infinity, 6) },
};
