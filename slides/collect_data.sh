#!/usr/bin/env bash
# Measures the data behind the slides' figures: runs the built step programs with --format csv and
# writes slides/data/<machine>_stepNN_<what>.csv, each row with the program's own metadata (device,
# git revision, build type, ...) and a `date` column added here.
#
#   slides/collect_data.sh BIN_DIR MACHINE [NN ...]
#     BIN_DIR  where the step programs are (build/default/bin)
#     MACHINE  the files' prefix: h100 on the lab's GPU machine, ci on a CPU-only machine
#     NN       the steps to measure (default: every step program in BIN_DIR but 13-14, which run
#              under mpiexec)
#
# What each step gets:
#   00          one row of key,value columns                          -> MACHINE_step00.csv
#   01, 02      square N x N sweep, 128 .. 16384 (64 KiB .. 1 GiB)     -> MACHINE_stepNN_sweep.csv
#               seven shapes of one 256 MiB footprint, 4 x 2^24 .. 2^24 x 4 -> MACHINE_stepNN_shapes.csv
#   GPU steps   square sweep 256 .. 32768 (256 KiB .. 4 GiB), the same shapes, and Sørensen's
#               figure 4: tall 100N x N, square 10N x 10N, wide N x 100N for N = 32 .. 2048
#               (400 KiB .. 1.6 GiB)                                 -> MACHINE_stepNN_fig4.csv
#   06          also two_pass against P = 1 .. 128 threads a row on tall 819200 x 20, square 8192 x 8192
#               and wide 80 x 204800                                 -> MACHINE_step06_p_sweep.csv
#   ladder      the whole ladder (bin/ladder --format csv) on its six problems of 256 MiB, float and
#               double, tall, square and wide     -> ladder/MACHINE_ladder_PRECISION_SHAPE.csv
#               (the whole-climb deck, slides/ladder.md, draws every machine's files; name it
#               explicitly: it is not part of the default list)
#   15          bf16, fp16 and fp8, both layouts, on square 16384^2, tall 2^26 x 4, wide 4 x 2^26 and
#               odd 12345 x 43483; step 11 in float on the same problems
#                                 -> MACHINE_step15_formats.csv, MACHINE_step15_float.csv
#   16, 17      step 17's program (every kernel of both steps, cuBLAS, the chooser's pick): k = 1, 2,
#               4 … 256 vectors, float and bf16, both layouts, on a square matrix of 256 MiB (8192^2
#               in float, 11585^2 in bf16) and odd 12345 x 43483  -> MACHINE_step16_vectors.csv
#               k = 1 … 64 on eight odd and degenerate shapes of 256 MiB and more
#                                 -> MACHINE_step16_vectors_odd.csv
#               32 problems drawn from a seed (HELDOUT_SEED, else a fresh one), 64 MiB to 1 GiB,
#               any aspect, layout, precision and k = 1 … 64 -> MACHINE_step16_vectors_heldout_SEED.csv
#               (step 16's program runs a subset of step 17's: asking for 16 measures with 17's)
#   07          the matmul detour, N x N x N for N = 128 .. 4096: mmult1, mmult2 at TILE 8, 16 and 32,
#               cuBLAS gemm (verified up to N = 1024; the CPU reference is N^3)
#                                                                     -> MACHINE_step07_matmul.csv
# float, cold cache, each program's default repetitions. A run that fails or is skipped (no GPU)
# is reported and left out; nothing is written for a step with no successful run.
set -euo pipefail
if (($# < 2)); then
  sed -n '2,40p' "$0" | sed 's/^# \{0,1\}//'
  exit 2
fi
bin=$1
machine=$2
shift 2
here="$(cd "$(dirname "$0")" && pwd)"
out="$here/data"
mkdir -p "$out"
date=$(date -u +%Y-%m-%dT%H:%MZ)

# The program of step NN is stepNN_<name> for the folder steps/NN_<name> (step 11 has tools beside it).
program_of() {
  local dir
  dir=$(compgen -G "$here/../steps/$1_*" | head -1) || return 0
  [[ -x "$bin/step$(basename "$dir")" ]] && echo "$bin/step$(basename "$dir")"
  return 0
}

steps=("$@")
if ((${#steps[@]} == 0)); then
  for dir in "$here"/../steps/[0-9][0-9]_*; do
    step=$(basename "$dir" | cut -c1-2)
    case $step in 13 | 14) continue ;; esac
    [[ -n $(program_of "$step") ]] && steps+=("$step")
  done
fi

# run FILE PROGRAM ARGS...: appends the program's CSV rows, with the date, to FILE (header once).
run() {
  local file=$1 program=$2 rows code=0
  shift 2
  echo "  $(basename "$program") $*" >&2
  rows=$("$program" "$@" --format csv 2>/tmp/collect_data.err) || code=$?
  if ((code != 0)); then
    echo "    left out: exit $code: $(head -1 /tmp/collect_data.err)" >&2
    return 0
  fi
  if [[ ! -s $file ]]; then
    printf '%s\n' "$rows" | head -1 | sed 's/$/,date/' >"$file"
  fi
  printf '%s\n' "$rows" | tail -n +2 | sed "s/\$/,$date/" >>"$file"
}

fresh() { rm -f "$1"; }

sweep_and_shapes() {
  local step=$1 program=$2
  shift 2
  local sweep="$out/${machine}_step${step}_sweep.csv" shapes="$out/${machine}_step${step}_shapes.csv"
  fresh "$sweep"
  for n in "$@"; do run "$sweep" "$program" --m "$n" --n "$n"; done
  fresh "$shapes"
  for mn in 4x16777216 64x1048576 1024x65536 8192x8192 65536x1024 1048576x64 16777216x4; do
    run "$shapes" "$program" --m "${mn%x*}" --n "${mn#*x}"
  done
}

for step in "${steps[@]}"; do
  if [[ $step == ladder ]]; then
    if [[ ! -x $bin/ladder ]]; then
      echo "ladder: no program in $bin" >&2
      continue
    fi
    mkdir -p "$out/ladder"
    for precision in float double; do
      for shape in tall square wide; do
        file="$out/ladder/${machine}_ladder_${precision}_${shape}.csv"
        fresh "$file"
        echo "ladder: $precision $shape" >&2
        "$bin/ladder" --precision "$precision" --shape "$shape" --format csv >"$file" || rm -f "$file"
      done
    done
    continue
  fi
  program=$(program_of "$step")
  if [[ -z $program ]]; then
    echo "step $step: no program in $bin" >&2
    continue
  fi
  echo "step $step: $(basename "$program")" >&2
  case $step in
    00)
      fresh "$out/${machine}_step00.csv"
      run "$out/${machine}_step00.csv" "$program"
      ;;
    01 | 02) sweep_and_shapes "$step" "$program" 128 256 512 1024 2048 4096 8192 16384 ;;
    07)
      matmul="$out/${machine}_step07_matmul.csv"
      fresh "$matmul"
      for n in 128 256 512 1024; do run "$matmul" "$program" --m "$n" --n "$n" --k "$n"; done
      for n in 2048 4096; do run "$matmul" "$program" --m "$n" --n "$n" --k "$n" --no-verify; done
      ;;
    13 | 14) echo "  not measured here: the MPI steps run under mpiexec" >&2 ;;
    15)
      # Each format on four problems of 256 MiB to 1 GiB (square, tall, wide, odd), both layouts;
      # step 11 in float on the same problems beside them: the same kernel moving twice the bytes.
      formats="$out/${machine}_step15_formats.csv" float="$out/${machine}_step15_float.csv"
      fresh "$formats"
      fresh "$float"
      for mn in 16384x16384 67108864x4 4x67108864 12345x43483; do
        for layout in row col; do
          for precision in bf16 fp16 fp8; do
            run "$formats" "$program" --precision "$precision" --layout "$layout" --m "${mn%x*}" --n "${mn#*x}"
          done
          if [[ -x $bin/step11_versatile ]]; then
            run "$float" "$bin/step11_versatile" --precision float --layout "$layout" --m "${mn%x*}" --n "${mn#*x}"
          fi
        done
      done
      ;;
    16 | 17)
      # Both steps' decks read the same files, written by step 17's program (its rows are step 16's
      # register-blocked kernel and cuBLAS, and step 17's kernels): once, whichever step is asked.
      [[ $step == 16 && " ${steps[*]} " == *" 17 "* ]] && continue
      program=$(program_of 17)
      if [[ -z $program ]]; then
        echo "step $step: its data come from step 17's program, not in $bin" >&2
        continue
      fi
      # The roofline's points: every kernel and cuBLAS at each k, A read once for a group of vectors.
      vectors="$out/${machine}_step16_vectors.csv"
      fresh "$vectors"
      for precision in float bf16; do
        square=8192x8192
        [[ $precision == bf16 ]] && square=11585x11585
        for mn in $square 12345x43483; do
          for layout in row col; do
            for k in 1 2 4 8 16 32 64 128 256; do
              run "$vectors" "$program" --precision "$precision" --layout "$layout" --m "${mn%x*}" --n "${mn#*x}" \
                --k "$k"
            done
          done
        done
      done
      # The speed targets' odd shapes (A of 256 MiB to 2 GiB in float): m and n odd or prime, and
      # the degenerate tall and wide ones.
      odd="$out/${machine}_step16_vectors_odd.csv"
      fresh "$odd"
      for precision in float bf16; do
        for mn in 12345x43483 43483x12345 131071x1031 1031x131071 4194301x33 33x4194301 67108859x3 3x67108859; do
          for layout in row col; do
            for k in 1 2 4 8 16 32 64; do
              run "$odd" "$program" --precision "$precision" --layout "$layout" --m "${mn%x*}" --n "${mn#*x}" --k "$k"
            done
          done
        done
      done
      # Problems nobody chose, to check the chooser's rule on: 32 drawn from a seed (HELDOUT_SEED,
      # else a fresh one; the file's name carries it), A of 64 MiB to 1 GiB, any aspect, layout and
      # precision, k = 1 … 64.
      seed=${HELDOUT_SEED:-$(od -An -N3 -tu4 /dev/urandom | tr -d ' ')}
      rm -f "$out/${machine}_step16_vectors_heldout_"*.csv
      heldout="$out/${machine}_step16_vectors_heldout_${seed}.csv"
      echo "  held-out problems from seed $seed" >&2
      while read -r precision layout m n k; do
        run "$heldout" "$program" --precision "$precision" --layout "$layout" --m "$m" --n "$n" --k "$k"
      done < <(python3 - "$seed" <<'PY'
import math, random, sys
draw = random.Random(int(sys.argv[1]))
for _ in range(32):
    precision, layout = draw.choice(["float", "bf16"]), draw.choice(["row", "col"])
    elems = 2 ** draw.uniform(26, 30) / (4 if precision == "float" else 2)
    m = max(3, round(math.sqrt(elems * 2 ** draw.uniform(-18, 18))))
    n = max(3, round(elems / m))
    print(precision, layout, m, n, round(2 ** draw.uniform(0, 6)))
PY
      )
      ;;
    *)
      sweep_and_shapes "$step" "$program" 256 512 1024 2048 4096 8192 16384 32768
      fig4="$out/${machine}_step${step}_fig4.csv"
      fresh "$fig4"
      for n in 32 64 128 256 512 1024 2048; do
        run "$fig4" "$program" --m $((100 * n)) --n "$n"
        run "$fig4" "$program" --m $((10 * n)) --n $((10 * n))
        run "$fig4" "$program" --m "$n" --n $((100 * n))
      done
      if [[ $step == 06 ]]; then
        psweep="$out/${machine}_step06_p_sweep.csv"
        fresh "$psweep"
        for mn in 819200x20 8192x8192 80x204800; do
          for p in 1 2 4 8 16 32 64 128; do
            run "$psweep" "$program" --variant two_pass --p "$p" --m "${mn%x*}" --n "${mn#*x}"
          done
        done
      fi
      ;;
  esac
done
for f in "$out/${machine}"_step*.csv; do
  [[ -f $f ]] && [[ $(wc -l <"$f") -le 1 ]] && rm -f "$f"
done
ls -l "$out/${machine}"_step*.csv 2>/dev/null || echo "nothing measured" >&2
