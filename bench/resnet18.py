#!/usr/bin/python3
"""ResNet-18 end to end: the workbench against PyTorch eager, in the same run (issue 19's figures).

    bench/resnet18.py [--build DIR] [--rounds N] [--threads 1,2] [--model FILE.onnx] [--keep DIR]

Makes torchvision's ResNet-18 with seeded random weights (nothing is downloaded), exports it to
ONNX (opset 17, batch 1, 3x224x224), times PyTorch eager inference on each thread count
(torch.set_num_threads, no_grad, the median of ROUNDS calls after a warm-up), then runs
<build>/bench/bench_onnx on the model (import time, VM build time, VM run time on the same thread
counts, where the time goes) and prints the ratios. Needs Debian's python3-torch and
python3-torchvision (apt-get install python3-torchvision); without them, --model FILE.onnx still
runs the workbench side. Not a test: it prints figures.

Runs under /usr/bin/python3 (Debian's torch), not a pyenv or venv interpreter.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time


def torch_eager(model, example, threads, rounds):
    import torch
    out = {}
    with torch.no_grad():
        for n in threads:
            torch.set_num_threads(n)
            model(example)  # warm-up
            times = []
            for _ in range(rounds):
                start = time.perf_counter()
                model(example)
                times.append((time.perf_counter() - start) * 1e3)
            out[n] = {"median": statistics.median(times), "best": min(times)}
    return out


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--build", default=os.path.join(here, "..", "build", "release"))
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--threads", default="1,2")
    parser.add_argument("--model", help="an ONNX model to run instead of exporting ResNet-18 (no PyTorch side)")
    parser.add_argument("--keep", help="write the exported model here instead of a temporary folder")
    args = parser.parse_args()
    threads = [int(t) for t in args.threads.split(",")]
    bench = os.path.join(args.build, "bench", "bench_onnx")
    if not os.path.exists(bench):
        sys.exit(f"resnet18.py: {bench} is missing: build the release preset first")

    folder = args.keep or tempfile.mkdtemp(prefix="wb_resnet18_")
    os.makedirs(folder, exist_ok=True)
    eager = None
    model_path = args.model
    if not model_path:
        try:
            import torch
            import torchvision
        except ImportError as e:
            sys.exit(f"resnet18.py: PyTorch is needed to export the model ({e}); "
                     "apt-get install python3-torchvision, or pass --model FILE.onnx")
        torch.manual_seed(0)
        model = torchvision.models.resnet18(weights=None).eval()
        example = torch.randn(1, 3, 224, 224)
        model_path = os.path.join(folder, "resnet18.onnx")
        torch.onnx.export(model, example, model_path, opset_version=17, input_names=["input"],
                          output_names=["output"])
        eager = torch_eager(model, example, threads, args.rounds)
        print(f"PyTorch {torch.__version__} eager: " +
              ", ".join(f"{n} thread{'s' if n > 1 else ''} {eager[n]['median']:.2f} ms" for n in threads))

    report_path = os.path.join(folder, "bench_onnx.json")
    cmd = [bench, model_path, "--rounds", str(args.rounds), "--threads", args.threads, "--json", report_path]
    subprocess.run(cmd, check=True)
    with open(report_path) as f:
        report = json.load(f)
    if eager:
        for label in ("default_build_pipeline", "fused"):
            if label not in report:
                continue
            for n in threads:
                ours = report[label]["run_ms"][str(n)]["median"]
                print(f"{label}, {n} thread{'s' if n > 1 else ''}: workbench {ours:.2f} ms vs PyTorch "
                      f"{eager[n]['median']:.2f} ms: {eager[n]['median'] / ours:.3f}x PyTorch's speed")
    print(f"import {report['import_ms']:.1f} ms (goal: under 1 s)")


if __name__ == "__main__":
    main()
