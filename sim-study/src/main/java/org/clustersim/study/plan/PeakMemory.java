package org.clustersim.study.plan;

import java.io.Serializable;
import org.clustersim.strategies.pipeline.RankPrograms;

import org.clustersim.strategies.training.MemoryModel;
import org.clustersim.strategies.training.TrainingStep;

/**
 * A GPU's peak memory predicted without simulating: the {@link MemoryModel}'s model states per
 * pipeline rank plus the activations its schedule keeps alive at once, walking the rank's program
 * in order: a forward makes its chunk's activations live, the full backward (or the W of a split
 * one) frees them. This is the least the schedule can hold: in the timeline a backward's last task
 * (a gradient reduction, a TP collective) may still run when the rank's next forward allocates,
 * and the timeline frees only at its end, so the simulated peak can be higher (by up to a
 * microbatch's activations), never lower. Activations offloaded to the host (CPU offload, one
 * stage) are counted off the GPU. A plan drops the candidates whose prediction already
 * exceeds HBM, which no simulation could rescue, and after simulating ranks only those whose
 * simulated peak fits as well.
 */
public final class PeakMemory {
    private PeakMemory() {
    }

    /**
     * The fullest pipeline rank's memory.
     *
     * @param rank        the pipeline rank
     * @param peakBytes   model states, workspace and the activations alive at the peak
     * @param weightBytes weights
     * @param gradientBytes gradients
     * @param optimizerBytes optimizer state
     * @param workspaceBytes framework reserve and logits buffers
     * @param activationBytes activations at the peak
     */
    public record Peak(int rank, long peakBytes, long weightBytes, long gradientBytes, long optimizerBytes,
                       long workspaceBytes, long activationBytes) implements Serializable {
        private static final long serialVersionUID = 1L;
    }

    /** The peak over the step's pipeline ranks (highest; the lowest rank on a tie). */
    public static Peak of(TrainingStep step) {
        MemoryModel model = new MemoryModel(step);
        long[] stageBytes = stageBytes(step, model);
        Peak best = null;
        // activations offloaded to the host (one stage) are off the GPU once their copy ends
        long offloaded = step.execution().offloads() ? model.hostOffloadBytes() : 0;
        for (int p = 0; p < step.pp(); p++) {
            long peak = Math.max(0, activationPeak(step, p, stageBytes) - offloaded);
            MemoryModel.States st = model.states(p);
            long total = Math.round(st.total()) + peak;
            if (best == null || total > best.peakBytes()) {
                best = new Peak(p, total, Math.round(st.weights()), Math.round(st.gradients()),
                        Math.round(st.optimizer()), Math.round(st.workspace()), peak);
            }
        }
        return best;
    }

    /** The most activation bytes pipeline rank {@code rank} holds at once, walking its program. */
    static long activationPeak(TrainingStep step, int rank) {
        return activationPeak(step, rank, stageBytes(step, new MemoryModel(step)));
    }

    private static long[] stageBytes(TrainingStep step, MemoryModel model) {
        long[] bytes = new long[step.schedule().placement(step.pp(), step.microbatches()).stages()];
        for (int s = 0; s < bytes.length; s++) {
            bytes[s] = model.activationBytes(s);
        }
        return bytes;
    }

    private static long activationPeak(TrainingStep step, int rank, long[] stageBytes) {
        return RankPrograms.of(step.schedule(), step.pp(), step.microbatches()).activationPeak(rank, stageBytes);
    }

    /** For messages: the breakdown in GB. */
    public static String describe(Peak m, long hbm) {
        return String.format(java.util.Locale.ROOT, "peak %.1f GB on pipeline rank %d against %.0f GB of HBM "
                + "(weights %.1f, gradients %.1f, optimizer %.1f, workspace %.1f, activations %.1f GB)",
                m.peakBytes() / 1e9, m.rank(), hbm / 1e9, m.weightBytes() / 1e9, m.gradientBytes() / 1e9,
                m.optimizerBytes() / 1e9, m.workspaceBytes() / 1e9, m.activationBytes() / 1e9);
    }

}
