package org.clustersim.study.goodput;

import java.util.List;

import org.clustersim.core.reliability.FailureClass;
import org.clustersim.core.reliability.LongRun;

/**
 * What the goodput study found: the run it replicated (with the chosen checkpoint interval),
 * the sweep that chose it if any, and each figure's mean over the replications with its 95%
 * confidence interval. Fractions are of the run's wall-clock time.
 *
 * @param stepS              the simulated step time, seconds
 * @param tokensPerStep      globalBatch x seqLen
 * @param failureClasses     what can fail, with counts and MTBFs
 * @param run                the long run replicated; its interval is the one chosen
 * @param sweep              the interval sweep, in increasing interval order; empty without one
 * @param interruptions      failures that hit the job
 * @param effectiveFraction  training time whose work survived
 * @param tokens             tokens trained
 * @param savingFraction     time spent saving checkpoints
 * @param restartingFraction time spent restarting
 * @param redoneFraction     training time a failure threw away
 */
public record GoodputResult(double stepS, double tokensPerStep, List<FailureClass> failureClasses, LongRun run,
                            List<Replications.SweepPoint> sweep, Mean interruptions, Mean effectiveFraction,
                            Mean tokens, Mean savingFraction, Mean restartingFraction, Mean redoneFraction) {

    /** The checkpoint interval replicated, seconds. */
    public double intervalS() {
        return run.checkpointIntervalS();
    }
}
