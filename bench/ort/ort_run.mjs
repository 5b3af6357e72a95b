// ONNX Runtime's side of bench/ort/run.sh: loads one .onnx file in
// onnxruntime-node (CPU execution provider, all graph optimizations, the
// given intra-op thread count, inter-op threads 1, sequential execution),
// runs it on .npy inputs (one warm-up, then --repeat timed runs of
// session.run) and prints one JSON object: session creation time, median and
// min latency. --output-dir writes every output as output_K.npy (the
// reference bench_onnx compares against).
//
// node ort_run.mjs MODEL.onnx --input a.npy [--input b.npy] [--threads T]
//                  [--repeat N] [--output-dir DIR] [--profile]
//
// --profile: ORT's own per-node profiler on for the timed runs; a table of
// every node's mean kernel time (its name, op type and output shape,
// slowest first) goes to stderr, to set beside `lowerscope-cli run
// --profile` (the profiler's overhead is in the printed latencies then).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import ort from 'onnxruntime-node';

const DTYPES = { '<f4': ['float32', Float32Array], '<f8': ['float64', Float64Array],
  '<i8': ['int64', BigInt64Array], '<i4': ['int32', Int32Array], '|b1': ['bool', Uint8Array] };

function readNpy(file) {
  const buf = fs.readFileSync(file);
  if (buf.subarray(0, 6).toString('latin1') !== '\x93NUMPY')
    throw new Error(`${file}: not a .npy file`);
  const major = buf[6];
  const headerLen = major === 1 ? buf.readUInt16LE(8) : buf.readUInt32LE(8);
  const start = (major === 1 ? 10 : 12) + headerLen;
  const header = buf.subarray(major === 1 ? 10 : 12, start).toString('latin1');
  const descr = /'descr':\s*'([^']+)'/.exec(header)?.[1];
  if (/'fortran_order':\s*True/.test(header))
    throw new Error(`${file}: Fortran order is not supported`);
  const shape = (/'shape':\s*\(([^)]*)\)/.exec(header)?.[1] ?? '')
    .split(',').map((s) => s.trim()).filter((s) => s).map(Number);
  if (!DTYPES[descr]) throw new Error(`${file}: dtype ${descr} is not supported`);
  const [type, Ctor] = DTYPES[descr];
  const bytes = buf.subarray(start);
  const data = new Ctor(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length));
  return new ort.Tensor(type, data, shape);
}

function writeNpy(file, tensor) {
  const descr = Object.keys(DTYPES).find((k) => DTYPES[k][0] === tensor.type);
  if (!descr) throw new Error(`output dtype ${tensor.type} is not supported`);
  const shape = tensor.dims.length === 1 ? `(${tensor.dims[0]},)` : `(${tensor.dims.join(', ')})`;
  let header = `{'descr': '${descr}', 'fortran_order': False, 'shape': ${shape}, }`;
  header += ' '.repeat(63 - ((10 + header.length) % 64)) + '\n';
  const pre = Buffer.alloc(10);
  pre.write('\x93NUMPY', 0, 'latin1');
  pre[6] = 1;
  pre[7] = 0;
  pre.writeUInt16LE(header.length, 8);
  const data = tensor.data;
  fs.writeFileSync(file, Buffer.concat([pre, Buffer.from(header, 'latin1'),
    Buffer.from(data.buffer, data.byteOffset, data.byteLength)]));
}

function parseArgs(argv) {
  const a = { inputs: [], threads: 1, repeat: 20, outputDir: '', profile: false };
  for (let i = 0; i < argv.length; ++i) {
    const v = argv[i];
    const next = () => {
      if (i + 1 >= argv.length) throw new Error(`${v} needs a value`);
      return argv[++i];
    };
    if (v === '--input') a.inputs.push(next());
    else if (v === '--threads') a.threads = Number(next());
    else if (v === '--repeat') a.repeat = Number(next());
    else if (v === '--output-dir') a.outputDir = next();
    else if (v === '--profile') a.profile = true;
    else if (v.startsWith('--')) throw new Error(`unknown option ${v}`);
    else a.model = v;
  }
  if (!a.model) throw new Error('usage: ort_run.mjs MODEL.onnx --input X.npy ...');
  return a;
}

/// The per-node table of the profile ORT wrote into `dir` (Chrome trace
/// JSON): the mean of each node's "<name>_kernel_time" events over the last
/// `runs` runs. The directory is removed.
function printProfile(dir, runs) {
  const files = fs.readdirSync(dir).filter((f) => f.endsWith('.json'));
  if (files.length !== 1) throw new Error(`expected one profile file in ${dir}, found ${files.length}`);
  const events = JSON.parse(fs.readFileSync(path.join(dir, files[0]), 'utf8'));
  const nodes = new Map();
  for (const e of events) {
    if (e.cat !== 'Node' || !e.name.endsWith('_kernel_time')) continue;
    const name = e.name.slice(0, -'_kernel_time'.length);
    if (!nodes.has(name)) {
      const shape = (e.args?.output_type_shape ?? []).map((o) => JSON.stringify(Object.values(o)[0]));
      nodes.set(name, { op: e.args?.op_name ?? '', shape: shape.join(' '), us: [] });
    }
    nodes.get(name).us.push(e.dur);
  }
  const rows = [...nodes].map(([name, n]) => {
    const last = n.us.slice(-runs);
    return { name, op: n.op, shape: n.shape, ms: last.reduce((x, y) => x + y, 0) / last.length / 1000 };
  }).sort((x, y) => y.ms - x.ms);
  const total = rows.reduce((x, r) => x + r.ms, 0);
  console.error(`node${' '.repeat(36)}op                  ms/run  output`);
  for (const r of rows)
    console.error(`${r.name.padEnd(40)}${r.op.padEnd(18)}${r.ms.toFixed(4).padStart(8)}  ${r.shape}`);
  console.error(`${'total'.padEnd(58)}${total.toFixed(4).padStart(8)}`);
  fs.rmSync(dir, { recursive: true, force: true });
}

async function main() {
  const a = parseArgs(process.argv.slice(2));
  if (a.profile) a.profileDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ort_profile_'));
  let t0 = performance.now();
  const session = await ort.InferenceSession.create(a.model, {
    executionProviders: ['cpu'],
    graphOptimizationLevel: 'all',
    intraOpNumThreads: a.threads,
    interOpNumThreads: 1,
    executionMode: 'sequential',
    ...(a.profile ? { enableProfiling: true, profileFilePrefix: path.join(a.profileDir, 'p') } : {}),
  });
  const createMs = performance.now() - t0;
  if (a.inputs.length !== session.inputNames.length)
    throw new Error(`${a.model} has ${session.inputNames.length} inputs, got ${a.inputs.length}`);
  const feeds = {};
  session.inputNames.forEach((n, k) => { feeds[n] = readNpy(a.inputs[k]); });
  let outs = await session.run(feeds); // warm-up
  const ms = [];
  const cpu0 = process.cpuUsage();
  for (let i = 0; i < a.repeat; ++i) {
    t0 = performance.now();
    outs = await session.run(feeds);
    ms.push(performance.now() - t0);
  }
  // With one intra-op thread ORT runs the graph on one thread: CPU time per
  // run is what the run costs, whatever else the machine does at the time.
  const cpu = process.cpuUsage(cpu0);
  const cpuMs = (cpu.user + cpu.system) / 1000 / a.repeat;
  ms.sort((x, y) => x - y);
  if (a.profile) {
    session.endProfiling(); // writes the trace file into profileDir
    printProfile(a.profileDir, a.repeat);
  }
  if (a.outputDir) {
    fs.mkdirSync(a.outputDir, { recursive: true });
    session.outputNames.forEach((n, k) => writeNpy(path.join(a.outputDir, `output_${k}.npy`), outs[n]));
  }
  console.log(JSON.stringify({
    model: path.basename(a.model), threads: a.threads, ort_version: ort.env.versions?.node ?? '',
    session_ms: createMs, median_ms: ms[Math.floor(ms.length / 2)], min_ms: ms[0], cpu_ms: cpuMs, repeat: a.repeat,
  }));
}

main().catch((e) => { console.error(`ort_run: ${e.message}`); process.exit(1); });
