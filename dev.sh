#!/usr/bin/env bash
# autogradlab developer entry point.
#
#   bash dev.sh lab   [jupyter args...]  set everything up, then open lessons/ in JupyterLab
#   bash dev.sh test  [pytest args...]   same set-up (plus chromium), then run the whole test suite
#   bash dev.sh setup                    only the set-up
#   bash dev.sh gpu-check OUTDIR         on a machine with an NVIDIA GPU, CuPy and torch: no set-up; the GPU
#                                        benchmark, then the device and lab suites on the GPU; logs in OUTDIR
#
# Idempotent and needs no stdin. Set-up: graphviz's `dot` (apt when root), a .venv with the
# package installed editable with its lab/test/browser/otter extras; for `test` also Debian's
# chromium + fonts-liberation and torch (for the comparison tests). pip is skipped when
# pyproject.toml has not changed since the last install (stamp files in .venv/).
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")"
ROOT=$PWD
VENV=$ROOT/.venv
PY=$VENV/bin/python
EXTRAS="lab,test,browser,otter"
TORCH_SPEC="torch==2.13.0"   # pinned: CI machines have a local CPU wheel of exactly this version
export PIP_DISABLE_PIP_VERSION_CHECK=1
export DEBIAN_FRONTEND=noninteractive

say()  { printf '[dev.sh] %s\n' "$*"; }
warn() { printf '[dev.sh] WARNING: %s\n' "$*" >&2; }
die()  { printf '[dev.sh] ERROR: %s\n' "$*" >&2; exit 1; }

usage() {
    cat <<'EOF'
usage: bash dev.sh COMMAND [args...]

  lab   [args]   set up (venv, package, graphviz) and open lessons/ in JupyterLab;
                 extra args go to `jupyter lab`
  test  [args]   same set-up plus chromium, then run the whole test suite (what CI runs):
                 pytest over tests/ and --nbval over notebooks/ and lessons/;
                 extra args go to pytest
  setup          only the set-up
  gpu-check OUT  on a machine with an NVIDIA GPU, CuPy and torch (its own python3, or $PYTHON; no set-up,
                 nothing installed): benchmarks/gpu.py --gpu-only, then the stand-in-GPU pass's suites on
                 the real GPU (AUTOGRADLAB_DEFAULT_DEVICE=cuda); logs and tables in OUT.
                 $GPU_BENCH_S and $GPU_SUITES_S cap each part (seconds), $GPU_WORKERS sets pytest-xdist's -n
EOF
}

is_root() { [ "$(id -u)" -eq 0 ]; }

APT_UPDATED=0
apt_install() {  # apt_install PKG... (root only)
    command -v apt-get >/dev/null 2>&1 || return 1
    if [ "$APT_UPDATED" -eq 0 ]; then
        apt-get update -qq
        APT_UPDATED=1
    fi
    apt-get install -y -qq --no-install-recommends "$@"
    # .ci/run sets this: a fresh machine never reuses the downloaded .deb files, so give their disk back
    if is_set "${AUTOGRADLAB_APT_CLEAN:-}"; then apt-get clean; fi
}

have_deb() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'; }

# (a) graphviz's `dot`; (b) for `test`, chromium + fonts-liberation
ensure_system_packages() {
    local mode=$1 missing=()
    command -v dot >/dev/null 2>&1 || missing+=(graphviz)
    if [ "$mode" = test ]; then
        [ -x /usr/bin/chromium ] || missing+=(chromium)
        if command -v dpkg-query >/dev/null 2>&1 && ! have_deb fonts-liberation; then
            missing+=(fonts-liberation)
        fi
    fi
    [ "${#missing[@]}" -eq 0 ] && return 0

    if is_root && command -v apt-get >/dev/null 2>&1; then
        say "installing system packages: ${missing[*]}"
        apt_install "${missing[@]}"
        command -v dot >/dev/null 2>&1 || die "graphviz was installed but \`dot\` is still not on PATH"
        return 0
    fi

    local p
    for p in "${missing[@]}"; do
        case $p in
            graphviz)
                warn "graphviz's \`dot\` is missing (needed to draw computation graphs)."
                warn "  install it with:  sudo apt-get install graphviz"
                warn "  (or: conda install -c conda-forge graphviz   /   brew install graphviz)"
                warn "  continuing: tests that need dot will skip or fail with a clear message." ;;
            chromium)
                warn "/usr/bin/chromium is missing (the browser tests need it)."
                warn "  install it with:  sudo apt-get install chromium fonts-liberation"
                warn "  continuing: the browser tests will skip or fail." ;;
            fonts-liberation)
                warn "fonts-liberation is missing (browser screenshots need it):  sudo apt-get install fonts-liberation" ;;
        esac
    done
}

# (c) the virtual environment
ensure_venv() {
    if [ -x "$PY" ] && "$PY" -c 'import sys' >/dev/null 2>&1; then
        return 0
    fi
    if [ -e "$VENV" ]; then
        warn ".venv exists but its python does not run; recreating it"
        rm -rf "$VENV"
    fi
    command -v python3 >/dev/null 2>&1 || die "python3 not found; install Python >= 3.10"
    python3 -c 'import sys; sys.exit(sys.version_info < (3, 10))' \
        || die "autogradlab needs Python >= 3.10; python3 is $(python3 -V 2>&1)"
    if ! python3 -c 'import venv, ensurepip' >/dev/null 2>&1; then
        if is_root && command -v apt-get >/dev/null 2>&1; then
            say "python3's venv module is missing; installing python3-venv"
            apt_install python3-venv
        else
            die "python3's venv module is missing; install it with:  sudo apt-get install python3-venv"
        fi
    fi
    say "creating .venv with $(python3 -V 2>&1)"
    python3 -m venv "$VENV" || die "python3 -m venv failed; on Debian/Ubuntu: sudo apt-get install python3-venv"
}

# (d) the package and its extras (+ torch for `test`), skipped when nothing changed
ensure_python_packages() {
    local mode=$1 hash stamp=$VENV/.autogradlab-stamp torch_stamp=$VENV/.autogradlab-torch-stamp
    hash="$(cat pyproject.toml <(printf '%s' "$EXTRAS") | sha256sum | cut -d' ' -f1)"
    if [ "$(cat "$stamp" 2>/dev/null)" != "$hash" ]; then
        say "installing autogradlab[$EXTRAS] into .venv (quiet; takes a minute the first time)"
        "$PY" -m pip install -q -e ".[$EXTRAS]"
        printf '%s\n' "$hash" > "$stamp"
    fi
    if [ "$mode" = test ]; then
        ensure_torch "$torch_stamp"
    fi
}

# torch for the comparison tests. Where it is required (AUTOGRADLAB_REQUIRE_TORCH=1, as .ci/run sets, or
# CI set: the same rule as tests/conftest.py), a failed install or a torch that does not import is fatal,
# and an earlier failure is retried; elsewhere a failure is remembered (no retry every run) and those tests skip.
is_set() { case "$(printf '%s' "${1:-}" | tr '[:upper:]' '[:lower:]')" in ""|0|false|no|off) return 1 ;; *) return 0 ;; esac; }
torch_is_required() { is_set "${AUTOGRADLAB_REQUIRE_TORCH:-}" || is_set "${CI:-}"; }

ensure_torch() {
    local torch_stamp=$1 state
    state="$(cat "$torch_stamp" 2>/dev/null || true)"
    if torch_is_required && [ "$state" = "ok $TORCH_SPEC" ] && ! "$PY" -c 'import torch' >/dev/null 2>&1; then
        warn "$TORCH_SPEC was installed but does not import; reinstalling it"
        state=""
    fi
    if torch_is_required && [ "$state" = "failed $TORCH_SPEC" ]; then
        state=""   # required: try again rather than trust an old failure
    fi
    if [ "$state" != "ok $TORCH_SPEC" ] && [ "$state" != "failed $TORCH_SPEC" ]; then
        say "installing $TORCH_SPEC (for the torch-comparison tests)"
        if "$PY" -m pip install -q "$TORCH_SPEC" && "$PY" -c 'import torch' >/dev/null 2>&1; then
            printf 'ok %s\n' "$TORCH_SPEC" > "$torch_stamp"
        else
            printf 'failed %s\n' "$TORCH_SPEC" > "$torch_stamp"
            if torch_is_required; then
                die "could not install (or import) $TORCH_SPEC, and AUTOGRADLAB_REQUIRE_TORCH or CI is set: the torch-comparison tests may not skip here"
            fi
            warn "could not install $TORCH_SPEC; continuing: the torch-comparison tests will skip."
            warn "  to retry: rm $torch_stamp   (AUTOGRADLAB_REQUIRE_TORCH=1 makes this an error)"
        fi
    fi
}

setup() {
    local mode=$1
    ensure_system_packages "$mode"
    ensure_venv
    ensure_python_packages "$mode"
}

has_notebooks() {  # has_notebooks DIR: any .ipynb under DIR, checkpoints excluded
    [ -d "$1" ] && [ -n "$(find "$1" -name '*.ipynb' -not -path '*/.ipynb_checkpoints/*' -print -quit)" ]
}

run_lab() {
    local args=(lab lessons/)
    is_root && args+=(--allow-root)
    exec "$VENV/bin/jupyter" "${args[@]}" "$@"
}

# The op, engine and events suites once more on the strict backend: CuPy-like arrays that refuse
# implicit conversion to NumPy, so a code path that would break on a GPU fails here too
# (tests/strict_backend.py, installed by tests/conftest.py when AUTOGRADLAB_STRICT_BACKEND=1).
STRICT_SUITES=(tests/test_foundation.py tests/test_ops_gradcheck.py tests/test_ops_torch.py
               tests/test_ops_errors.py tests/test_engine_contract.py tests/test_engine_vs_torch.py
               tests/test_events.py tests/test_strict_backend.py tests/test_inplace_views.py
               tests/test_edge_cases.py tests/test_scalar_operands.py tests/test_torch_names_vs_torch.py
               tests/test_normalization_vs_torch.py tests/test_convolution_vs_torch.py
               tests/test_lab_ops_vs_torch.py tests/test_recurrent_vs_torch.py tests/test_nn_utils_vs_torch.py
               tests/test_attention_vs_torch.py tests/test_rearrange_vs_torch.py tests/test_distance_losses_vs_torch.py
               tests/test_activations_layers_vs_torch.py tests/test_sampling_vs_torch.py
               tests/test_selection_ops_vs_torch.py tests/test_more_layers_vs_torch.py tests/test_linalg_vs_torch.py
               tests/test_statistics_joining_vs_torch.py tests/test_special_vs_torch.py tests/test_special_functions_vs_torch.py
               tests/test_random_and_names_vs_torch.py tests/test_printing_vs_torch.py
               tests/test_search_and_shape_names_vs_torch.py tests/test_more_losses_init_vs_torch.py
               tests/test_composites_vs_torch.py tests/test_func_vs_torch.py tests/test_module_hooks_vs_torch.py
               tests/test_lab_portability_vs_torch.py tests/test_distributions_vs_torch.py
               tests/test_gamma_family_vs_torch.py tests/test_more_distributions_vs_torch.py
               tests/test_transformed_distributions_vs_torch.py tests/test_older_names_vs_torch.py
               tests/test_torch_level_vs_torch.py tests/test_more_nn_vs_torch.py
               tests/test_count_relaxed_positive_distributions_vs_torch.py tests/test_grid_sampling_vs_torch.py
               tests/test_more_transforms_vs_torch.py tests/test_edge_cases_of_new_names_vs_torch.py
               tests/test_expand_and_arg_constraints_vs_torch.py tests/test_gpd_logistic_normal_straight_through_vs_torch.py
               tests/test_wishart_vs_torch.py tests/test_lkj_cholesky_vs_torch.py tests/test_joined_transforms_vs_torch.py
               tests/test_exponential_family_vs_torch.py tests/test_fractional_pool_adaptive_softmax_vs_torch.py
               tests/test_kl_pairs_vs_torch.py
               tests/test_checkpoint_vs_torch.py tests/test_weight_norms_vs_torch.py
               tests/test_lazy_modules_vs_torch.py tests/test_default_dtype_vs_torch.py
               tests/test_custom_functions_vs_torch.py tests/test_parametrize_vs_torch.py
               tests/test_three_d_layers_vs_torch.py tests/test_ctc_loss_vs_torch.py tests/test_complex.py
               tests/test_fft.py tests/test_complex_events.py tests/test_complex_linalg.py
               tests/test_lu_vs_torch.py tests/test_polynomials_vs_torch.py tests/test_fuzz_findings_vs_torch.py
               tests/test_api_findings_vs_torch.py tests/test_optim_findings_vs_torch.py
               tests/test_view_findings_vs_torch.py tests/test_autograd_findings_vs_torch.py
               tests/test_distribution_findings_vs_torch.py tests/test_statistics_findings_vs_torch.py
               tests/test_shape_findings_vs_torch.py tests/test_matmul_findings_vs_torch.py
               tests/test_functional_findings_vs_torch.py tests/test_fft_findings_vs_torch.py tests/test_reduction_findings_vs_torch.py
               tests/test_indexing_findings_vs_torch.py
               tests/test_bessel_vs_torch.py)

# run_pass "what it is" NAME=value ... -- suite files ...: the files that exist, with that environment
run_pass() {
    local what=$1 envs=() suites=() f
    shift
    while [ "$1" != "--" ]; do envs+=("$1"); shift; done
    shift
    for f in "$@"; do [ -f "$f" ] && suites+=("$f"); done
    [ "${#suites[@]}" -eq 0 ] && return 0
    say "running $what"
    env "${envs[@]}" "$PY" -m pytest -q -p no:cacheprovider "${suites[@]}"
}

# The device and lab suites once more "on a GPU": tests/fake_cuda.py stands in for CuPy and one device
# (AUTOGRADLAB_CUDA_XP=fake_cuda), every tensor made without device= goes there
# (AUTOGRADLAB_DEFAULT_DEVICE=cuda), and its arrays refuse host operands as CuPy's do. So what assumes the
# CPU (a layer built there by default, a test writing NumPy into a device tensor) fails on any machine;
# what only a real GPU shows is left to tests/test_devices.py there.
FAKE_CUDA_SUITES=(tests/test_foundation.py tests/test_ops_gradcheck.py tests/test_ops_torch.py
                  tests/test_ops_errors.py tests/test_engine_contract.py tests/test_engine_vs_torch.py
                  tests/test_events.py tests/test_devices.py tests/test_host_transfers.py
                  tests/test_inplace_views.py tests/test_edge_cases.py tests/test_scalar_operands.py
                  tests/test_torch_names_vs_torch.py tests/test_normalization_vs_torch.py
                  tests/test_convolution_vs_torch.py tests/test_lab_ops_vs_torch.py
                  tests/test_recurrent_vs_torch.py tests/test_nn_utils_vs_torch.py tests/test_attention_vs_torch.py
                  tests/test_rearrange_vs_torch.py tests/test_distance_losses_vs_torch.py
                  tests/test_activations_layers_vs_torch.py tests/test_sampling_vs_torch.py
                  tests/test_selection_ops_vs_torch.py tests/test_more_layers_vs_torch.py
                  tests/test_linalg_vs_torch.py tests/test_statistics_joining_vs_torch.py tests/test_special_vs_torch.py tests/test_special_functions_vs_torch.py
                  tests/test_nn.py
                  tests/test_optim.py tests/test_optim_adaptive_vs_torch.py tests/test_optim_portability_vs_torch.py tests/test_lr_scheduler_vs_torch.py tests/test_engine_buffers.py
                  tests/test_hooks_order_vs_torch.py tests/test_grad_api_vs_torch.py
                  tests/test_operator_details_vs_torch.py tests/test_fuzz_vs_torch.py
                  tests/test_events_lazy.py tests/test_source_lines.py tests/test_training.py tests/test_data.py tests/test_utils_data_vs_torch.py
                  tests/test_generator.py tests/test_samplers_vs_torch.py tests/test_random_and_names_vs_torch.py
                  tests/test_search_and_shape_names_vs_torch.py tests/test_more_losses_init_vs_torch.py
                  tests/test_composites_vs_torch.py tests/test_func_vs_torch.py tests/test_module_hooks_vs_torch.py
                  tests/test_lab_portability_vs_torch.py tests/test_distributions_vs_torch.py
                  tests/test_gamma_family_vs_torch.py tests/test_more_distributions_vs_torch.py
                  tests/test_transformed_distributions_vs_torch.py tests/test_older_names_vs_torch.py
                  tests/test_torch_level_vs_torch.py tests/test_more_nn_vs_torch.py
                  tests/test_count_relaxed_positive_distributions_vs_torch.py tests/test_grid_sampling_vs_torch.py
                  tests/test_more_transforms_vs_torch.py tests/test_edge_cases_of_new_names_vs_torch.py
                  tests/test_expand_and_arg_constraints_vs_torch.py tests/test_gpd_logistic_normal_straight_through_vs_torch.py
                  tests/test_wishart_vs_torch.py tests/test_lkj_cholesky_vs_torch.py
                  tests/test_joined_transforms_vs_torch.py tests/test_exponential_family_vs_torch.py
                  tests/test_fractional_pool_adaptive_softmax_vs_torch.py tests/test_kl_pairs_vs_torch.py
                  tests/test_checkpoint_vs_torch.py tests/test_weight_norms_vs_torch.py
                  tests/test_lazy_modules_vs_torch.py tests/test_lessons_tooling.py
                  tests/test_default_dtype_vs_torch.py tests/test_custom_functions_vs_torch.py
                  tests/test_parametrize_vs_torch.py tests/test_three_d_layers_vs_torch.py
                  tests/test_ctc_loss_vs_torch.py tests/test_complex.py tests/test_fft.py
                  tests/test_complex_events.py tests/test_complex_linalg.py
                  tests/test_lu_vs_torch.py tests/test_polynomials_vs_torch.py tests/test_fuzz_findings_vs_torch.py
                  tests/test_api_findings_vs_torch.py tests/test_optim_findings_vs_torch.py
                  tests/test_view_findings_vs_torch.py tests/test_autograd_findings_vs_torch.py
                  tests/test_distribution_findings_vs_torch.py tests/test_statistics_findings_vs_torch.py
                  tests/test_shape_findings_vs_torch.py tests/test_matmul_findings_vs_torch.py
                  tests/test_functional_findings_vs_torch.py tests/test_fft_findings_vs_torch.py tests/test_reduction_findings_vs_torch.py
                  tests/test_indexing_findings_vs_torch.py
                  tests/test_bessel_vs_torch.py)

run_tests() {
    if [ "$#" -eq 0 ]; then
        # the full run (no pytest args): the strict and stand-in-GPU passes first, the main summary last
        run_pass "the op/engine/events suites on the strict backend (AUTOGRADLAB_STRICT_BACKEND=1)" \
            AUTOGRADLAB_STRICT_BACKEND=1 -- "${STRICT_SUITES[@]}"
        run_pass "the device and lab suites on a stand-in GPU (AUTOGRADLAB_CUDA_XP=fake_cuda, default device cuda)" \
            "PYTHONPATH=$ROOT/tests${PYTHONPATH:+:$PYTHONPATH}" AUTOGRADLAB_CUDA_XP=fake_cuda \
            AUTOGRADLAB_DEFAULT_DEVICE=cuda -- "${FAKE_CUDA_SUITES[@]}"
    fi
    local targets=() nbval=()
    [ -d tests ] && targets+=(tests)
    local d
    for d in notebooks lessons; do
        if has_notebooks "$d"; then
            targets+=("$d")
            nbval=("${AUTOGRADLAB_NBVAL:---nbval}" --nbval-sanitize-with nbval_sanitize.cfg)
        fi
    done
    # ${a[@]+"${a[@]}"}: empty arrays are safe under `set -u` on old bash (macOS) too
    local cmd=("$PY" -m pytest ${targets[@]+"${targets[@]}"} ${nbval[@]+"${nbval[@]}"} "$@")
    say "running: .venv/bin/python -m pytest ${cmd[*]:3}"
    local rc=0
    "${cmd[@]}" || rc=$?
    if [ "$rc" -eq 5 ]; then
        # One pytest run covers tests/ and every notebook, so 5 means nothing at all ran.
        printf '[dev.sh] ERROR: pytest collected no tests at all (exit 5): nothing ran.\n' >&2
    fi
    return "$rc"
}

# The GPU check for a lent GPU machine's short lease: one command, each part capped, everything in OUT.
run_gpu_check() {
    local out=${1:?usage: bash dev.sh gpu-check OUTDIR} py=${PYTHON:-python3} rc=0
    mkdir -p "$out"
    "$py" -c 'import cupy; cupy.cuda.runtime.getDeviceCount()' 2>/dev/null \
        || die "gpu-check needs CuPy and an NVIDIA GPU for $py (pip install -e '.[gpu]'; see README, GPU)"
    export PYTHONPATH=$ROOT${PYTHONPATH:+:$PYTHONPATH} PYTHONUNBUFFERED=1
    { nvidia-smi -L 2>&1 || true
      "$py" -c 'import sys, numpy, cupy, torch
print("python", sys.version.split()[0], "numpy", numpy.__version__, "cupy", cupy.__version__,
      "torch", torch.__version__, "cuda runtime", cupy.cuda.runtime.runtimeGetVersion())'
      echo "cpus $(nproc)"; } 2>&1 | tee "$out/machine.txt"
    say "benchmarks/gpu.py --gpu-only (at most ${GPU_BENCH_S:-150} s)"
    timeout "${GPU_BENCH_S:-150}" "$py" benchmarks/gpu.py --gpu-only --markdown "$out/gpu.md" \
        --json "$out/gpu.json" > "$out/bench.log" 2>&1 || rc=$?
    cat "$out/bench.log"
    say "the stand-in-GPU pass's suites on the GPU (at most ${GPU_SUITES_S:-300} s)"
    AUTOGRADLAB_DEFAULT_DEVICE=cuda timeout "${GPU_SUITES_S:-300}" "$py" -m pytest -p no:cacheprovider \
        -n "${GPU_WORKERS:-8}" --dist loadfile --timeout 120 -v -rfE --junitxml "$out/suites.xml" "${FAKE_CUDA_SUITES[@]}" \
        > "$out/suites.log" 2>&1 || rc=$?
    # -v: each result on its own line, so a run stopped by its cap still says what failed so far
    grep -E '(^(FAILED|ERROR) |\] (FAILED|ERROR) )' "$out/suites.log" | cut -c1-300 | sort -u | head -80
    tail -3 "$out/suites.log"
    return "$rc"
}

cmd=${1:-}
[ $# -gt 0 ] && shift
case $cmd in
    lab)   setup lab;  run_lab "$@" ;;
    test)  setup test; run_tests "$@" ;;
    setup) setup test; say "set-up done" ;;
    gpu-check) run_gpu_check "$@" ;;
    -h|--help|help) usage ;;
    *)     usage >&2; exit 2 ;;
esac
