#pragma once
// SchedulePolicy: every number the default schedule
// (engine/transform/default_schedule.cpp) decides with, as named plain data.
// forMachine() derives it from a MachineModel; the defaults below are the
// values for this project's reference machine (AVX-512, 2 cores) and the
// reasons they were chosen. These knobs are the tuner's search dimensions:
// the policy round-trips through JSON, and a build may override any subset
// with the PassContext config "tir.schedule_policy" (a JSON object).
#include <string>
#include <vector>

namespace unity::target {

struct MachineModel;

struct SchedulePolicy {
  // --- parallel loops
  /// Make the outer loops parallel at all. Off for machines without
  /// threads (bare-metal Cortex-M): there is no runtime pool to run them.
  bool parallelize = true;
  /// Threads the parallel loops are sized for (the machine's cores).
  int cores = 1;
  /// The leading loops are fused until they count at least
  /// parallelChunksPerCore * cores iterations: a few chunks per thread let
  /// the pool balance uneven chunks without many tiny ones.
  int parallelChunksPerCore = 4;

  // --- vectorization and the register tile of reductions
  /// Mark contiguous inner loops vectorized. Off when the machine has no
  /// vector unit (lanes 1): the tile's columns are unrolled instead.
  bool vectorize = true;
  /// float32 lanes of one vector register (MachineModel::lanesF32): the
  /// unit of the tile's columns.
  int vectorLanes = 16;
  /// The tile is at most this many vectors wide along the output's last
  /// index (V = 1..maxTileVectors vectors, or all of a shorter loop); a
  /// symbolic x is split by maxTileVectors * vectorLanes.
  int maxTileVectors = 4;
  /// Unrolled rows U tried for the tile, largest first (the first that
  /// divides the row loop and fits the register budget wins for each V).
  std::vector<int> tileRows = {14, 8, 7, 6, 4, 3, 2, 1};
  /// Accumulator registers the U x V tile may hold: three quarters of the
  /// vector registers (24 of AVX-512's 32, 12 of AVX2's 16), the rest is
  /// left for the loaded row vectors and the broadcasts.
  int accumulatorRegisters = 24;

  // --- spatial (elementwise) loops
  /// A long contiguous loop (extent > splitAbove, a multiple of
  /// splitFactor) is split so the outer part can be fused into the
  /// parallel loop and the vectorized inner part stays short. 0: never.
  int splitAbove = 256;
  int splitFactor = 64;
  /// A flattened copy reading floormod(v, K) is split into rows of K when
  /// K >= minFlatRowWidth: below that the row loop's overhead dominates.
  int minFlatRowWidth = 8;

  // --- reductions
  /// A single reduce loop longer than reduceSplitAbove is cut into slices
  /// (the first of reduceTileCandidates that divides it) whose outer loop
  /// moves out of the row tile loop, so a slice of the reused input
  /// (Kt x V floats, 32 KiB at 128 x 64) stays in L2 across all row tiles.
  /// 0: never (machines without a cache).
  int reduceSplitAbove = 128;
  std::vector<int> reduceTileCandidates = {128, 96, 64, 192, 144, 32};
  /// Several reduce loops (a convolution's channels and taps) whose reused
  /// input is read again by every tile of some outer loops (a packed
  /// weight, by every output row): the channel loop is cut (by its largest
  /// divisor that fits) so one slice of that input, channels x taps x tile
  /// width floats, takes at most this many bytes, a quarter of the L1 per
  /// core, when the whole input would take more. The first row tile reads
  /// the slice from memory, the others from L1, and the next slice is the
  /// next contiguous run of the weight: small slices keep the hardware
  /// prefetcher streaming it while the other rows compute. Measured on six
  /// 512-channel 3x3 layers in a row (9.4 MB of weight each, streamed from
  /// memory as in a model): 2.5 ms a layer with 24 KiB slices, 2.06-2.14
  /// with 4.8-9.6 KB ones (docs/benchmarks.md).
  int reduceSliceBytes = 8 * 1024;
  /// Annotate that slice loop for InjectPrefetch: every register tile
  /// prefetches the lines of the next slice it will read, so the slice is
  /// in cache when the loop gets there. Off for machines without a cache.
  bool prefetchSlices = true;
  /// Several constant reduce loops (convolution taps) with no row tile go
  /// inside the vectorized loop, fully unrolled, when they count at most
  /// this many steps (a 7x7 window); larger windows stay loops.
  int maxUnrolledTaps = 49;
  /// Keep a padding producer (a Select) materialized when a reduction reads
  /// it, instead of inlining the bounds test into every multiply-add.
  bool keepPaddingProducers = true;
  /// Keep an elementwise producer that calls a transcendental function
  /// (exp, log, tanh, erf, ...) materialized when two or more blocks read
  /// it, instead of inlining it, and so computing it again, in each:
  /// softmax's exp(x - max) feeds both the row sum and the scaling. One
  /// more pass over the data costs less than a second polynomial per
  /// element (softmax 4x128x128: see docs/benchmarks.md, session 15).
  bool keepSharedTranscendentals = true;
  /// Compute such a kept padding producer per plane under the parallel
  /// loop of the depthwise convolution (taps inside the vector loop) that
  /// reads it (computeAt): each iteration pads the channel it is about to
  /// read into a one-plane buffer that stays in cache, instead of a padded
  /// copy of the whole image written out and read back. MobileNetV2's
  /// 32x112x112 depthwise layer: 0.34 -> 0.22 ms in the model.
  bool paddingAtConsumer = true;
  /// With several cores, split between the threads by output rows rather
  /// than by channels a depthwise convolution whose rows divide evenly
  /// (one chunk of rows per core, its padded copy per chunk and channel)
  /// and a packed convolution that reduces more channels than it outputs
  /// (a projection): each thread then reads what it wrote in the kernel
  /// before. MobileNetV2 on two threads: 5.6-5.8 -> 5.4 ms median.
  bool partitionRows = true;
  /// Move an elementwise consumer of a reduction (a bias/batch-norm/clip/
  /// residual epilogue) under the reduction's tile loop, after the tile's
  /// reduction, so it reads the accumulators while they are in L1 instead
  /// of a full-size temporary in a separate pass (reverseComputeAt).
  bool fuseEpilogues = true;
  /// ... except a consumer that must walk a flattened tile position by
  /// position (the wide convolution's crop: a division and a scattered
  /// store per output) after a reduction of fewer multiply-adds per output
  /// than this: there the walk costs more than the separate pass it saves
  /// (the 3-channel 3x3 stem: 27). A walk that drops no column (an
  /// unpadded 1x1 convolution reading the image directly) stores
  /// contiguously and is fused whatever its reduction.
  int flatEpilogueMinReduction = 256;
  // --- the convolution's form (transform::alterConvLayoutChoice)
  /// A convolution over fewer input channels than this (the RGB stems)
  /// keeps the wide form instead of the packed one (weight OIHW<b>o,
  /// output channels as lanes). The packed tile ends in a blocked-to-NCHW
  /// store, a scatter per vector, paid once per tile whatever the
  /// reduction; on a machine whose scatters are slow
  /// (MachineModel::fastScatter false) that is the larger cost of a stem.
  /// forMachine: 16 there, else 0 (session 11's Xeon measured the stems
  /// faster packed: 150-155 against 125-128 GFLOP/s). The EPYC (Zen 4),
  /// conv + bias + relu alone (bench_onnx, three rounds alternated, min
  /// ms, wide / packed): ResNet's 7x7/2 2.57-2.84 / 2.91-3.05 on one
  /// thread, 1.24-1.41 / 1.53-1.94 on two; MobileNetV2's 3x3/2 0.30-0.34 /
  /// 0.40-0.50 on one. In whole models the difference is within the
  /// drift (MobileNetV2's stem kernel 0.75-0.84 ms wide, 0.70-0.76 packed).
  int packedConvMinChannels = 0;
  /// A 1x1 convolution over fewer input channels than this keeps the wide
  /// form on every machine (32x28x28 -> 192 measured as fast wide; 1x1
  /// kernels over 64 and 96 channels measured 3-21 % faster packed with
  /// their bias and relu, where bench_kernels' bare kernels had them faster
  /// wide).
  int packed1x1MinChannels = 64;
  // --- Winograd's algorithm for 3x3 stride-1 convolutions
  // (transform::winogradConvChoice)
  /// m of F(m x m, 3 x 3): 4 (4x fewer multiplies than the direct
  /// convolution, 36 products per 16 outputs), 2 (2.25x), 0 for the direct
  /// convolution. forMachine: 4 with vectors, 0 without (the transforms
  /// are vector loops; a scalar machine keeps the direct form, whose
  /// rounding the tests of other targets compare against).
  int winogradTile = 0;
  /// The fewest m x m tiles per image for which a convolution takes
  /// Winograd's form. The a*a matrix products then have at least this many
  /// rows; below it the transformed weight (a*a / 9 times the direct
  /// weight: 37.7 MB for 512 x 512 channels at m = 4) is read for too few
  /// rows. 16: ResNet's 14x14 layers (4 x 4 tiles) take it, the 7x7 ones
  /// (2 x 2) keep the direct form; measured in docs/benchmarks.md
  /// "Session 19".
  int winogradMinTiles = 16;
  /// Factor a row reduction (softmax's max and sum, layer norm's sums:
  /// the reduction runs along the input's contiguous axis, the output's
  /// contiguous loop would read it a whole row apart per lane) along its
  /// contiguous axis: one partial result per vector lane, contiguous vector
  /// loads, the lanes folded per row (rfactor). Off: the register tile
  /// vectorizes the output's loop and gathers.
  bool rowReductions = true;

  // --- packing the reused input of a reduction (schedule::packLayout)
  /// Copy the input that the register tile reads along its columns (B of
  /// C = A B) into panels as wide as the tile, [n / V][k][V], before the
  /// reduction, when the tile is narrower than the row (V < n): each
  /// reduce step then reads the next V floats of one contiguous stream
  /// instead of a row a whole row of B apart (4 KiB at n = 1024: every row
  /// of a slice in the same L1 sets, a new page every step). Measured on
  /// the EPYC: matmul 1024^3 from ~145 to ~245 GFLOP/s on one thread. Off
  /// for machines without a cache.
  bool packReusedInput = true;
  /// Pack only when every packed element is read by at least this many
  /// output rows (the extent of the loops the read does not depend on):
  /// the copy costs one load and store per element, the reduction reuses
  /// it that many times.
  int packMinReuse = 256;
  /// Copy each panel inside the loop over column tiles, right before the
  /// tile uses it (on the thread that runs that tile, with no parallel
  /// region of its own), instead of all panels before the reduction.
  bool packInTileLoop = true;

  /// The parallel-loop target: parallelChunksPerCore * cores.
  int parallelTarget() const { return parallelChunksPerCore * cores; }

  /// The policy for a machine: lanes, register budget, cores, threads and
  /// vector unit from the model; scalar machines get rows {4, 2, 1} (a
  /// small unrolled tile: code size matters on microcontrollers); machines
  /// without any cache get no reduction slicing. Everything else keeps the
  /// defaults above.
  static SchedulePolicy forMachine(const MachineModel& m);

  /// {"parallelize": true, "cores": 2, ...}: every knob, by the names above
  /// in snake_case.
  std::string toJSON() const;
  /// A full or partial JSON object: the named knobs replace this policy's;
  /// an unknown name or a wrongly typed value is a unity::Error naming it.
  SchedulePolicy withJSON(const std::string& json) const;
  static SchedulePolicy fromJSON(const std::string& json) {
    return SchedulePolicy{}.withJSON(json);
  }

  friend bool operator==(const SchedulePolicy&, const SchedulePolicy&) = default;
};

} // namespace unity::target
