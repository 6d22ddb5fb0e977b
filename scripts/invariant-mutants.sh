#!/bin/bash
# Shows that each relation of StepInvariantsTest can fail: applies one one-line mutant at a time
# to the working tree, runs the relation it should break on a few scenarios, prints the failures,
# and restores the file. Run from the repository root on a clean tree (about 2 minutes a mutant).
set -u
cd "$(dirname "$0")/.."
if ! git diff --quiet; then
    echo "invariant-mutants: the working tree has changes; commit or stash them first" >&2
    exit 2
fi
FEW='gpt3-1.3b-pp4-gpipe|gpt3-175b-pp8-1f1b|gpt3-175b-pp8-interleaved|mixtral-8x7b-64xh100-tp2-pp4-ep8|validation/megatron-sc21/gpt-1.7b|validation/megatron-sc21/gpt-7.5b|validation/maxtext/v5e-16b-2x256'
REPLICATED='llama3-405b-16k-h100|validation/megatron-bridge/llama3-70b-64xh100-fp8-25.09'
mutant() { # name file sed-expression relation scenarios
    echo "=== $1 ($2)"
    sed -i "$3" "$2"
    git diff -U0 -- "$2" | grep '^[-+] '
    mvn -o -B -q -pl sim-cli -am test -Dtest="StepInvariantsTest#$4" -Dsurefire.failIfNoSpecifiedTests=false \
        -Dinvariants.scenarios="$5" > "target-mutant-$1.log" 2>&1
    grep -o "AssertionFailedError: [^=]*" "target-mutant-$1.log" | sort -u || echo "mutant survived"
    git checkout -q -- "$2"
    rm -f "target-mutant-$1.log"
}
mutant links sim-core/src/main/java/org/clustersim/core/network/LinkRates.java \
    's|nominal\[i\] = linkOf\[i\].bandwidthBytesPerS() / 1e9;|nominal[i] = 1e23 / linkOf[i].bandwidthBytesPerS() / 1e9;|' \
    doublingEveryLinkIsNeverSlower "$FEW"
mutant device sim-strategies/src/main/java/org/clustersim/strategies/device/GemmSurface.java \
    's|/ bestFlops \* 1e9|* bestFlops / 6.3e26 * 1e9|g' aFasterDeviceIsNeverSlower "$FEW"
mutant bubble sim-study/src/main/java/org/clustersim/study/StepFigures.java \
    's|bubbleSum += w.pipelineBubbleNs() \* perStep;|bubbleSum += w.pipelineBubbleNs() * perStep * step.microbatches();|' \
    moreMicrobatchesNeverRaiseTheBubble "$FEW"
mutant replicas sim-strategies/src/main/java/org/clustersim/strategies/training/GradientReduction.java \
    's|if (!step.overlapGradReduce()) {|if (!step.overlapGradReduce() \|\| step.replicas() == 1) {|' \
    oneReplicaStandsForAll "$REPLICATED"
