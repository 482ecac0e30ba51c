"""Model-level GPU tests, run on the GPU machine (which has onnxruntime but no MLIR).

For every case folder in CARRY_DIR (made by test/gpu/prepare_models.sh on the build machine: the model's
skeleton.onnx + recipe.json from scripts/portable_weights.py, fp32/fp16 weight-stripped sm_90a plans and
a `batch` file) this regenerates the full ONNX model bit-exactly, refits both plans with kiln-refit,
makes ONNX Runtime (CPU, fp32) references on seeded inputs, runs each plan with
`kiln-run --device gpu --compare` (fp32: rtol 1e-3 / atol 1e-4; fp16 and bf16 (a bf16.stripped.plan, when
the case folder has one) and tf32 (a tf32.stripped.plan): rtol/atol 1e-2) and records the max
absolute error, the error relative to the largest reference value and the mean absolute error.

Usage: python3 test/gpu/models_vs_ort.py CARRY_DIR WORK_DIR KILN_BIN_DIR OUT_JSON
Exit status 0 even when a comparison fails: read the JSON / printed lines (fp16/bf16 errors are
reported, not judged)."""
import json, os, subprocess, sys, time
import numpy as np
import onnx
from onnx import numpy_helper
import onnxruntime as ort

carry, work, kbin, out_json = sys.argv[1:5]
repo = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..'))
results = []
for case in sorted(os.listdir(carry)):
    cdir = os.path.join(carry, case)
    wdir = os.path.join(work, case)
    os.makedirs(wdir, exist_ok=True)
    r = {'case': case}
    t0 = time.time()
    full = os.path.join(wdir, 'model.onnx')
    p = subprocess.run([sys.executable, os.path.join(repo, 'scripts', 'portable_weights.py'), 'regen',
                        os.path.join(cdir, 'skeleton.onnx'), '--recipe', os.path.join(cdir, 'recipe.json'),
                        '-o', full], capture_output=True, text=True)
    if p.returncode != 0:
        r['error'] = 'regen failed: ' + p.stderr[-500:]
        results.append(r); print(case, r['error']); continue
    r['regen_s'] = round(time.time() - t0, 1)
    # Seeded inputs and ONNX Runtime fp32 references.
    m = onnx.load(full, load_external_data=False)
    rng = np.random.default_rng(0)
    sess = ort.InferenceSession(full, providers=['CPUExecutionProvider'])
    feeds = {}
    ddir = os.path.join(wdir, 'data'); os.makedirs(ddir, exist_ok=True)
    batch = int(open(os.path.join(cdir, 'batch')).read()) if os.path.exists(os.path.join(cdir, 'batch')) else 1
    for k, i in enumerate(sess.get_inputs()):
        shape = [d if isinstance(d, int) else batch for d in i.shape]
        if 'int64' in i.type:
            x = np.ones(shape, np.int64) if 'mask' in i.name else rng.integers(0, 1000, shape, dtype=np.int64)
        else:
            x = rng.standard_normal(shape).astype(np.float32)
        feeds[i.name] = x
        open(os.path.join(ddir, 'input_%d.pb' % k), 'wb').write(numpy_helper.from_array(x, i.name).SerializeToString())
    t0 = time.time()
    outs = sess.run(None, feeds)
    r['ort_s'] = round(time.time() - t0, 2)
    for k, (o, y) in enumerate(zip(sess.get_outputs(), outs)):
        open(os.path.join(ddir, 'output_%d.pb' % k), 'wb').write(numpy_helper.from_array(y, o.name).SerializeToString())
    for prec in ('fp32', 'tf32', 'fp16', 'bf16'):
        sp = os.path.join(cdir, prec + '.stripped.plan')
        if not os.path.exists(sp):
            continue
        plan = os.path.join(wdir, prec + '.plan')
        p = subprocess.run([os.path.join(kbin, 'kiln-refit'), sp, '--weights-from', full, '-o', plan],
                           capture_output=True, text=True)
        if p.returncode != 0:
            r[prec] = {'error': 'refit: ' + (p.stdout + p.stderr)[-600:]}
            print(case, prec, r[prec]['error']); continue
        rtol, atol = ('1e-3', '1e-4') if prec == 'fp32' else ('1e-2', '1e-2')
        jf = os.path.join(wdir, prec + '.json')
        p = subprocess.run([os.path.join(kbin, 'kiln-run'), plan, '--device', 'gpu', '--input-dir', ddir,
                            '--compare', ddir, '--rtol', rtol, '--atol', atol, '--json=' + jf,
                            '--output-dir', os.path.join(wdir, prec + '_out')],
                           capture_output=True, text=True)
        try:
            j = json.load(open(jf))
        except Exception:
            j = {'raw': (p.stdout + p.stderr)[-600:]}
        outs_j = j.get('outputs', [])
        r[prec] = {'exit': p.returncode, 'rtol': rtol, 'atol': atol,
                   'outputs': [{k2: o.get(k2) for k2 in ('name', 'compare', 'max_abs_err', 'max_rel_err', 'mismatches')} for o in outs_j] if outs_j else j}
        norm = []
        for k in range(len(outs)):
            try:
                t = onnx.TensorProto(); t.ParseFromString(open(os.path.join(wdir, prec + '_out', 'output_%d.pb' % k), 'rb').read())
                g = numpy_helper.to_array(t).astype(np.float64); ref = outs[k].astype(np.float64)
                norm.append({'max_abs': float(np.abs(g - ref).max()), 'max_abs_ref': float(np.abs(ref).max()),
                             'max_abs_over_max_ref': float(np.abs(g - ref).max() / max(np.abs(ref).max(), 1e-30)),
                             'mean_abs': float(np.abs(g - ref).mean())})
            except Exception as e:
                norm.append({'error': str(e)})
        r[prec]['vs_ort_fp32'] = norm
        print(case, prec, 'exit', p.returncode, norm, (p.stdout.strip().splitlines() or [''])[-3:])
    results.append(r)
json.dump(results, open(out_json, 'w'), indent=1)
