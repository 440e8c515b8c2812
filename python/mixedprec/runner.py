"""mixedprec.run: train a step on the CPU for N steps with numpy arrays in and
out, through the mp-run tool (docs/MpRun.md) in a subprocess."""

import json
import os
import subprocess
import tempfile

try:
    import numpy as np
except ImportError:  # compile/report work without numpy; run needs it
    np = None

from . import _config
from .compiler import signature

# How mp-run reads and writes each element type in .npy files.
NUMPY_DTYPES = {
    "f32": "<f4", "f16": "<f2", "bf16": "<f4", "f8E4M3FN": "<f4", "f8E5M2": "<f4",
    "f64": "<f8", "i64": "<i8", "i32": "<i4", "i8": "|i1", "i1": "|b1",
}


class RunError(Exception):
    """mp-run failed: `message` (its `mp-run: error:` line), `diagnostics`
    (everything it wrote to stderr, MLIR diagnostics included) and
    `returncode`."""

    def __init__(self, message, diagnostics, returncode):
        self.message = message
        self.diagnostics = diagnostics
        self.returncode = returncode
        super().__init__(message if not diagnostics.strip() or diagnostics.strip() == message
                         else message + "\n" + diagnostics.rstrip("\n"))


class RunResult:
    """The trajectory and final state of a run.

    - `losses`, `loss_scales` (NaN without a loss-scale state), `skipped`
      (bool): one entry per step, numpy arrays;
    - `params`: the final parameters (`mp.param` arguments, in order; f32
      masters after master weights), numpy arrays; `param_indices` their
      argument numbers;
    - `accuracy` (with evaluation, else None), `eval` (mp-run's dict);
    - `trajectory`: mp-run's whole JSON; `output`: what it printed."""

    def __init__(self, trajectory, params, param_indices, output):
        steps = trajectory["steps"]
        self.trajectory = trajectory
        self.losses = np.array([s["loss"] for s in steps], dtype=np.float64)
        self.loss_scales = np.array([np.nan if s.get("loss_scale") is None else s["loss_scale"]
                                     for s in steps], dtype=np.float64)
        self.skipped = np.array([bool(s["skipped"]) for s in steps], dtype=bool)
        self.params = params
        self.param_indices = param_indices
        self.eval = trajectory.get("eval")
        self.accuracy = self.eval["accuracy"] if self.eval else None
        self.steps_per_second = trajectory.get("steps_per_second")
        self.output = output

    @property
    def final_loss(self):
        return float(self.losses[-1]) if len(self.losses) else None

    def __repr__(self):
        return "<mixedprec.RunResult %d steps, final loss %s, %d skipped%s>" % (
            len(self.losses), self.final_loss, int(self.skipped.sum()),
            "" if self.accuracy is None else ", accuracy %.4f" % self.accuracy)


def mp_run_path():
    """The mp-run executable: $MIXEDPREC_MP_RUN, else the one of the build
    tree or install prefix the package belongs to."""
    return os.environ.get("MIXEDPREC_MP_RUN") or _config.mp_run()


def _by_index(values, arguments, what):
    """{argument index: array} from a list in argument order or a dict keyed
    by argument index."""
    indices = [a.index for a in arguments]
    if isinstance(values, dict):
        unknown = set(values) - set(indices)
        if unknown:
            raise ValueError("%s: no %s argument number %s (they are %s)"
                             % (what, what, sorted(unknown), indices))
        if set(values) != set(indices):
            raise ValueError("%s: arrays for arguments %s expected, got %s"
                             % (what, indices, sorted(values)))
        return dict(values)
    values = list(values)
    if len(values) != len(indices):
        raise ValueError("%s: %d arrays expected (arguments %s), got %d"
                         % (what, len(indices), indices, len(values)))
    return dict(zip(indices, values))


def _save(path, array, spec, batched, what):
    array = np.asarray(array)
    expected = tuple(spec.shape[1:]) if batched else tuple(spec.shape)
    got = tuple(array.shape[1:]) if batched else tuple(array.shape)
    if batched and not spec.shape:
        expected, got = (), tuple(array.shape[1:])
    if got != expected:
        raise ValueError("%s: shape %s does not fit %r%s" % (
            what, list(array.shape), spec, " (samples along dimension 0)" if batched else ""))
    np.save(path, np.ascontiguousarray(array.astype(NUMPY_DTYPES[spec.dtype], copy=False)))


def run(module_text, steps, data=None, params=None, pipeline="auto", seed=0, init=None,
        shuffle=True, eval_data=None, eval_function="predict", function=None,
        cpu_pipeline_options=None, num_classes=None, timeout=None, threads=1):
    """Runs the train step of `module_text` (mp IR, for instance
    `mixedprec.compile`'s output, or a lowered module) on the CPU for `steps`
    steps with mp-run, and returns a RunResult.

    - `data`: the batches: a list of arrays, one per data argument in
      argument order (or a dict argument number -> array), each holding all
      samples along dimension 0 (mp-run draws batches of the argument's first
      dimension from them, in a seeded order unless `shuffle=False`); a
      string is given to mp-run's `--data` as is ("random",
      "fashion-mnist"); None: random data.
    - `params`: initial parameters (list in `mp.param` order, or dict
      argument number -> array); None: mp-run's `init` scheme from `seed`.
    - `pipeline`: passes mp-run runs before mp-cpu-pipeline ("auto":
      mp-autodiff when the module still holds mp.grad; "none"; or a pass
      pipeline such as "mp-mixed-precision-pipeline{compute-type=bf16}").
    - `eval_data`: (inputs, labels) arrays to report the accuracy of
      `eval_function` on after training (True with data="fashion-mnist").
    - `threads`: mp-run's `--threads` (0: all cores); the results do not
      depend on it.

    Raises RunError when mp-run fails, ValueError for arrays that do not fit
    the step's signature, CompileError when the module does not parse."""
    if np is None:
        raise ImportError("mixedprec.run needs numpy (Debian: python3-numpy)")
    step = signature(module_text, function)
    param_arguments = step.of_role("param")
    with tempfile.TemporaryDirectory(prefix="mixedprec-run-") as directory:
        input_path = os.path.join(directory, "step.mlir")
        with open(input_path, "w") as file:
            file.write(module_text)
        json_path = os.path.join(directory, "trajectory.json")
        save_dir = os.path.join(directory, "final")
        command = [mp_run_path(), input_path, "--steps=%d" % steps, "--seed=%d" % seed,
                   "--function=" + step.name, "--pipeline=" + (pipeline or "none"),
                   "--print-every=0", "--json=" + json_path, "--save=" + save_dir,
                   "--shuffle=" + ("true" if shuffle else "false")]
        if init is not None:
            command.append("--init=" + init)
        if cpu_pipeline_options:
            command.append("--cpu-pipeline-options=" + cpu_pipeline_options)
        if num_classes is not None:
            command.append("--num-classes=%d" % num_classes)
        if threads != 1:
            command.append("--threads=%d" % threads)

        if data is None or isinstance(data, str):
            command.append("--data=" + (data or "random"))
            if eval_data is not None and eval_data is not True:
                raise ValueError("eval_data arrays need data given as arrays")
        else:
            data_dir = os.path.join(directory, "data")
            os.mkdir(data_dir)
            for index, array in _by_index(data, step.of_role("data"), "data").items():
                _save(os.path.join(data_dir, "arg%d.npy" % index), array,
                      step.arguments[index].spec, True, "data argument %d" % index)
            if eval_data is not None:
                inputs, labels = eval_data
                inputs, labels = np.asarray(inputs), np.asarray(labels)
                if labels.ndim != 1 or len(labels) != len(inputs):
                    raise ValueError("eval_data: labels must be [N] for inputs [N, ...]")
                np.save(os.path.join(data_dir, "eval_inputs.npy"),
                        np.ascontiguousarray(inputs.astype(np.float32, copy=False)))
                np.save(os.path.join(data_dir, "eval_labels.npy"),
                        np.ascontiguousarray(labels.astype(np.int64, copy=False)))
            command.append("--data=npy:" + data_dir)
        if eval_data is not None:
            command += ["--eval", "--eval-function=" + eval_function]

        if params is not None:
            load_dir = os.path.join(directory, "initial")
            os.mkdir(load_dir)
            for index, array in _by_index(params, param_arguments, "params").items():
                _save(os.path.join(load_dir, "arg%d.npy" % index), array,
                      step.arguments[index].spec, False, "parameter %d" % index)
            command.append("--load=" + load_dir)

        process = subprocess.run(command, capture_output=True, text=True, timeout=timeout)
        if process.returncode != 0:
            errors = [line for line in process.stderr.splitlines()
                      if line.startswith("mp-run: error:")]
            message = errors[-1] if errors else (
                "mp-run failed with exit status %d" % process.returncode)
            raise RunError(message, process.stderr, process.returncode)
        with open(json_path) as file:
            trajectory = json.load(file)
        final = [np.load(os.path.join(save_dir, "arg%d.npy" % a.index))
                 for a in param_arguments]
    return RunResult(trajectory, final, [a.index for a in param_arguments], process.stdout)
