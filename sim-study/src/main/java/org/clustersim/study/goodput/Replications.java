package org.clustersim.study.goodput;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

import org.clustersim.study.engine.TaskEngine;
import org.clustersim.study.engine.Progress;
import org.clustersim.core.reliability.LongRun;

/**
 * Seeded replications of long runs on a {@link TaskEngine}: every replication is a task, with
 * seeds seed, seed + 1, ... as {@link LongRun#replicate}, so the outcomes are the same on any
 * engine and thread count. The interval sweep gives every interval the same seeds, so they face
 * the same failure times.
 *
 * @param replications replications per run
 * @param seed         the first seed
 */
public record Replications(int replications, long seed) {
    /** Intervals a sweep tries: Young/Daly's times 2^(i/4) for i from -8 to 8. */
    public static final int SWEEP_POINTS = 17;

    /** One interval of a sweep and its mean effective training fraction. */
    public record SweepPoint(double intervalSeconds, double effectiveTrainingFraction) {
    }

    /** One replication: a long run and its seed. */
    record Replication(LongRun run, long seed) implements Serializable {
        private static final long serialVersionUID = 1L;
    }

    /**
     * Every run's replications, each a task of {@code tasks}; per run, the outcomes in seed order.
     */
    public List<List<LongRun.Outcome>> of(TaskEngine tasks, List<LongRun> runs) {
        List<Replication> all = new ArrayList<>();
        for (LongRun r : runs) {
            for (int i = 0; i < replications; i++) {
                all.add(new Replication(r, seed + i));
            }
        }
        List<LongRun.Outcome> outcomes = tasks.map(all, x -> x.run().simulate(new SplittableRandom(x.seed())),
                Progress.silent());
        List<List<LongRun.Outcome>> out = new ArrayList<>();
        for (int r = 0; r < runs.size(); r++) {
            out.add(outcomes.subList(r * replications, (r + 1) * replications));
        }
        return out;
    }

    /**
     * Tries intervals from 1/4 to 4 times {@code probe}'s Young/Daly interval in steps of
     * 2^(1/4), in increasing order, each with the same seeds; the best is the first with the
     * highest mean effective training fraction ({@link #best}).
     */
    public List<SweepPoint> sweep(TaskEngine tasks, LongRun probe) {
        double youngDaly = probe.youngDalyIntervalS();
        List<LongRun> runs = new ArrayList<>();
        int half = SWEEP_POINTS / 2;
        for (int i = -half; i <= half; i++) {
            runs.add(probe.withInterval(youngDaly * Math.pow(2, i / 4.0)));
        }
        List<List<LongRun.Outcome>> all = of(tasks, runs);
        List<SweepPoint> points = new ArrayList<>();
        for (int i = 0; i < runs.size(); i++) {
            double fraction = all.get(i).stream().mapToDouble(LongRun.Outcome::effectiveFraction).average().orElse(0);
            points.add(new SweepPoint(runs.get(i).checkpointIntervalS(), fraction));
        }
        return points;
    }

    /** The interval of the first point with the highest effective fraction; {@code fallback} if none. */
    public static double best(List<SweepPoint> points, double fallback) {
        double best = fallback;
        double bestFraction = -1;
        for (SweepPoint p : points) {
            if (p.effectiveTrainingFraction() > bestFraction) {
                bestFraction = p.effectiveTrainingFraction();
                best = p.intervalSeconds();
            }
        }
        return best;
    }
}
