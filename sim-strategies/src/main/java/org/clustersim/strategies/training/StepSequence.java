package org.clustersim.strategies.training;

/**
 * How many training steps are simulated back to back, and how one step's weight update reaches
 * the next step. Step n + 1's first forward of a stage waits for the update of that stage's
 * weights in step n: the rank's Adam step and, with the distributed optimizer (ZeRO 1 or 2), the
 * all-gather of the updated bf16 weights. That all-gather either follows the Adam step (Megatron
 * -core's default) or, with {@code overlapParamGather} (Megatron-core's
 * {@code --overlap-param-gather}), runs bucket by bucket ahead of the next step's first forward,
 * each bucket waited for by the first layer that uses it ({@link ParamGatherPrefetch} says when
 * each gather is dispatched). Nothing synchronises the ranks at the
 * optimizer (no global gradient-norm or overflow check is modelled), so consecutive steps
 * overlap wherever the schedule allows it, as the zero-bubble paper's post-validation intends
 * (Qi et al., arXiv 2401.10241, section 4).
 *
 * @param steps              consecutive steps, at least 1; summaries report the last
 * @param overlapParamGather with ZeRO 1 or 2, gather updated weights ahead of the next forward per
 *                           bucket instead of after the optimizer; with one step, the step begins
 *                           with the gathers of the previous update, as in the steady state
 * @param alignParamGather   with overlapParamGather under the interleaved schedule, Megatron-core's
 *                           {@code align_param_gather} (Megatron-LM's default, Megatron-Bridge's with
 *                           virtual pipelining): every chunk's gather dispatched whole by the schedule,
 *                           at the same time on every pipeline rank; ignored by other schedules, as
 *                           Megatron-LM's arguments.py turns it off for them
 * @param withOptimizerStep  with overlapParamGather under the interleaved schedule, Megatron-core's
 *                           {@code overlap_param_gather_with_optimizer_step}: the first chunk's gather
 *                           dispatched inside the optimizer step, after that chunk's own update
 */
public record StepSequence(int steps, boolean overlapParamGather, boolean alignParamGather,
                           boolean withOptimizerStep) {
    /** One step, weights gathered after the optimizer: the single-step view. */
    public static final StepSequence ONE = new StepSequence(1, false);

    public StepSequence {
        if (steps < 1) {
            throw new IllegalArgumentException("simulate at least one step, not " + steps);
        }
    }

    /** {@code steps} steps, gathers aligned where the schedule aligns them, none with the optimizer step. */
    public StepSequence(int steps, boolean overlapParamGather) {
        this(steps, overlapParamGather, true, false);
    }
}
