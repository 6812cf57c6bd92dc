#!/bin/sh
# Measures the instruction-like detector: recall by class on both halves of
# a labelled development corpus (strong, weak and other classes apart),
# false positives by negative class and precision, the false-positive rate
# on the sentences of the extraction page sets, the older corpus's figures,
# and the cost per snippet (median; measured on whatever else the machine
# is doing, so read it as an upper figure).
#
#   tests/bench/instruction_eval.sh CORPUS_TSV PAGE_SETS_DIR [OLD_CORPUS_TSV]
#
# The model's weights are retrained (rarely, never in CI) with
#   python3 tests/bench/instruction_train.py CORPUS_TSV PAGE_SETS_DIR \
#       supervisor/core/src/instruction/model.bin
# and the recorded size, hash and example scores in
# supervisor/core/src/instruction/tests.rs updated from its output. Ways of
# training are compared on folds of the tuning half only, with
#   python3 tests/bench/instruction_cv.py CORPUS_TSV PAGE_SETS_DIR [--hard-negatives N]
set -eu
cd "$(dirname "$0")/../.."
exec cargo run --quiet --release -p rypsok-core --features measure --example instruction_eval -- "$@"
