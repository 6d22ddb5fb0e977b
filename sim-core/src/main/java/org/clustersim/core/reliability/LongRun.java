package org.clustersim.core.reliability;

import java.util.List;
import java.util.SplittableRandom;

/**
 * A long training run under failures: the job trains, saves a checkpoint every
 * {@code checkpointIntervalS} seconds of training (training stops for {@code checkpointCostS}
 * while it saves), and on every failure loses the work since the last completed checkpoint
 * and pays {@code restartCostS} (detecting the failure, rescheduling onto healthy nodes,
 * reloading the checkpoint) before training again. A failure during a restart starts the
 * restart over; one during a save loses that save. Work in progress when the run's wall-clock
 * time is up counts as trained. Failures arrive as the superposition of every
 * {@link FailureClass}'s Poisson process.
 *
 * <p>The trade-off it captures is Young's (CACM 1974) and Daly's (FGCS 2006): frequent
 * checkpoints cost saving time, rare ones lose more work per failure; the best interval is
 * close to sqrt(2 x checkpoint cost x MTBF) when failures are rare against the interval.
 *
 * @param durationS           wall-clock length of the run
 * @param checkpointIntervalS training time between checkpoints
 * @param checkpointCostS     time training stops to save one
 * @param restartCostS        time from a failure to training again
 * @param failures            what can fail
 */
public record LongRun(double durationS, double checkpointIntervalS, double checkpointCostS, double restartCostS,
                      List<FailureClass> failures) implements java.io.Serializable {

    public LongRun {
        if (!(durationS > 0) || !(checkpointIntervalS > 0) || checkpointCostS < 0 || restartCostS < 0) {
            throw new IllegalArgumentException("duration and checkpoint interval must be positive, costs >= 0");
        }
        failures = List.copyOf(failures);
    }

    /** Failures per second of the whole job. */
    public double failureRate() {
        double r = 0;
        for (FailureClass f : failures) {
            r += f.ratePerSecond();
        }
        return r;
    }

    /** The job's mean time between failures, seconds. */
    public double mtbfSeconds() {
        return 1 / failureRate();
    }

    /**
     * One seeded realisation.
     *
     * @param interruptions   failures that hit the job
     * @param trainedS        training time whose work survived
     * @param checkpointingS  time spent saving checkpoints
     * @param restartingS     time spent restarting
     * @param lostS           training time whose work a failure threw away
     */
    public record Outcome(long interruptions, double trainedS, double checkpointingS, double restartingS,
                          double lostS) implements java.io.Serializable {
        /** Surviving training time over wall-clock time. */
        public double effectiveFraction() {
            double total = trainedS + checkpointingS + restartingS + lostS;
            return total == 0 ? 0 : trainedS / total;
        }
    }

    /** Simulates the run with failures drawn from {@code random}. */
    public Outcome simulate(SplittableRandom random) {
        Clock c = new Clock(random, failureRate());
        while (c.t < durationS) {
            // train until the next checkpoint, a failure or the end
            double stop = Math.min(c.t + (checkpointIntervalS - c.unsaved), Math.min(c.nextFailure, durationS));
            c.unsaved += stop - c.t;
            c.t = stop;
            if (c.t >= durationS) {
                c.trained += c.unsaved;
                break;
            }
            if (c.t == c.nextFailure) {
                c.fail();
                continue;
            }
            // save a checkpoint; a failure during the save loses it
            double saveEnd = Math.min(c.t + checkpointCostS, durationS);
            if (c.nextFailure < saveEnd) {
                c.saving += c.nextFailure - c.t;
                c.t = c.nextFailure;
                c.fail();
                continue;
            }
            c.saving += saveEnd - c.t;
            c.t = saveEnd;
            c.trained += c.unsaved;
            c.unsaved = 0;
        }
        return new Outcome(c.interruptions, c.trained, c.saving, c.restarting, c.lost);
    }

    /** The state of one realisation as it advances. */
    private final class Clock {
        final SplittableRandom random;
        final double rate;
        double t;
        double nextFailure;
        double unsaved;
        long interruptions;
        double trained;
        double saving;
        double restarting;
        double lost;

        Clock(SplittableRandom random, double rate) {
            this.random = random;
            this.rate = rate;
            this.nextFailure = next(0);
        }

        double next(double from) {
            return rate > 0 ? from + exponential(random, rate) : Double.POSITIVE_INFINITY;
        }

        /** A failure now: the unsaved work is lost, then a restart that starts over when a failure lands in it. */
        void fail() {
            interruptions++;
            lost += unsaved;
            unsaved = 0;
            while (true) {
                double failure = next(t);
                double done = Math.min(t + restartCostS, durationS);
                if (failure < done) {
                    restarting += failure - t;
                    t = failure;
                    interruptions++;
                    continue;
                }
                restarting += done - t;
                t = done;
                nextFailure = failure;
                return;
            }
        }
    }

    private static double exponential(SplittableRandom random, double rate) {
        return -Math.log(1 - random.nextDouble()) / rate;
    }

    /** The Young/Daly first-order optimum interval: sqrt(2 x checkpoint cost x MTBF). */
    public double youngDalyIntervalS() {
        return Math.sqrt(2 * checkpointCostS * mtbfSeconds());
    }

    /** The same run with another checkpoint interval. */
    public LongRun withInterval(double intervalS) {
        return new LongRun(durationS, intervalS, checkpointCostS, restartCostS, failures);
    }

    /** The same run with another restart cost. */
    public LongRun withRestartCost(double restartS) {
        return new LongRun(durationS, checkpointIntervalS, checkpointCostS, restartS, failures);
    }

    /**
     * {@code n} realisations, replication i seeded with {@code seed + i}: a sweep over intervals
     * with the same seed sees the same failure times (common random numbers) until its
     * choices diverge.
     */
    public List<Outcome> replicate(int n, long seed) {
        List<Outcome> out = new java.util.ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            out.add(simulate(new SplittableRandom(seed + i)));
        }
        return out;
    }
}
