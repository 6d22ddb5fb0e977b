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
                      List<FailureClass> failures) {

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
                          double lostS) {
        /** Surviving training time over wall-clock time. */
        public double effectiveFraction() {
            double total = trainedS + checkpointingS + restartingS + lostS;
            return total == 0 ? 0 : trainedS / total;
        }
    }

    /** Simulates the run with failures drawn from {@code random}. */
    public Outcome simulate(SplittableRandom random) {
        double rate = failureRate();
        double t = 0;
        double nextFailure = rate > 0 ? exponential(random, rate) : Double.POSITIVE_INFINITY;
        long interruptions = 0;
        double trained = 0;
        double saving = 0;
        double restarting = 0;
        double lost = 0;
        double sinceCheckpoint = 0; // training time not yet saved
        while (t < durationS) {
            // train until the next checkpoint, a failure or the end
            double trainEnd = t + (checkpointIntervalS - sinceCheckpoint);
            double stop = Math.min(trainEnd, Math.min(nextFailure, durationS));
            sinceCheckpoint += stop - t;
            t = stop;
            if (t >= durationS) {
                trained += sinceCheckpoint;
                break;
            }
            if (t == nextFailure) {
                interruptions++;
                lost += sinceCheckpoint;
                sinceCheckpoint = 0;
                double[] r = restart(random, rate, t);
                restarting += r[0];
                interruptions += (long) r[2];
                t = r[1];
                nextFailure = r[3];
                continue;
            }
            // save a checkpoint
            double saveEnd = Math.min(t + checkpointCostS, durationS);
            if (nextFailure < saveEnd) {
                saving += nextFailure - t;
                t = nextFailure;
                interruptions++;
                lost += sinceCheckpoint;
                sinceCheckpoint = 0;
                double[] r = restart(random, rate, t);
                restarting += r[0];
                interruptions += (long) r[2];
                t = r[1];
                nextFailure = r[3];
                continue;
            }
            saving += saveEnd - t;
            t = saveEnd;
            trained += sinceCheckpoint;
            sinceCheckpoint = 0;
        }
        return new Outcome(interruptions, trained, saving, restarting, lost);
    }

    /**
     * A restart from time {@code t}, starting over whenever a failure lands in it.
     *
     * @return time spent, when training resumes, failures during the restart, the next failure after it
     */
    private double[] restart(SplittableRandom random, double rate, double t) {
        double spent = 0;
        long extra = 0;
        while (true) {
            double next = t + (rate > 0 ? exponential(random, rate) : Double.POSITIVE_INFINITY);
            double done = Math.min(t + restartCostS, durationS);
            if (next < done) {
                spent += next - t;
                t = next;
                extra++;
                continue;
            }
            spent += done - t;
            return new double[] {spent, done, extra, next};
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
