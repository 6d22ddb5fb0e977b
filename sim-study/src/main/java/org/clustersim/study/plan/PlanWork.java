package org.clustersim.study.plan;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import org.clustersim.core.input.InputException;

/**
 * The work of a plan search, estimated from its own pace while it screens: the layouts left at the
 * pace of the last round of batches, plus the simulations (their tasks at the event engine's
 * rate), on the engine's task slots. A search whose estimate exceeds the limit is refused as soon
 * as its pace shows it (after a tenth of the limit at the earliest), with the estimate and the knobs that multiply it most, instead of running
 * for hours behind a progress bar ("about 400m18s left").
 *
 * <p>The pace is measured, not modelled: screening costs from microseconds to tens of
 * milliseconds per layout with the cluster, the batch and what the estimator's caches share
 * between neighbouring layouts (a sample spread over the space, each layout far from the last,
 * measured 10 to 40 times the real pace). So the decision to refuse, never the output of a
 * search that finishes, depends on this machine's speed.
 *
 * @param layouts         layouts of the search
 * @param screened        layouts screened so far
 * @param elapsedSeconds  seconds the screening has taken so far
 * @param paceLayouts     layouts of the last round
 * @param paceSeconds     wall seconds the last round took on the engine
 * @param simulations     candidates to simulate
 * @param simulateSeconds estimated seconds per simulation (one thread)
 * @param slots           tasks the engine runs at once
 */
public record PlanWork(int layouts, int screened, double elapsedSeconds, int paceLayouts, double paceSeconds,
                       int simulations, double simulateSeconds, int slots) {
    /** Batches per task slot of the first round; each round doubles it, up to {@link #MAX_ROUND_PER_SLOT}. */
    static final int FIRST_ROUND_PER_SLOT = 2;
    /**
     * Batches per task slot of a round at most: a check every minute or two of a long search
     * (16,384 layouts on 2 slots), while the wait for a round's last batch (and on Spark, a job per
     * round) costs a few percent.
     */
    static final int MAX_ROUND_PER_SLOT = 32;
    /**
     * Simulated tasks per second of one thread, steady state: GPT-3 175B on 1,024 A100 simulated
     * its 52 candidates (about 5 M tasks each, every replica) in 86 s on 2 threads
     * (docs/benchmarks.md, the plan at scale).
     */
    static final double TASKS_PER_SECOND = 1.5e6;
    /** Tasks per GPU, microbatch and layer of a stage, as the run command's work estimate counts them. */
    static final double TASKS_PER_LAYER = 4;

    /**
     * Share of the limit a search runs before its estimate may refuse it: the pace of the first
     * rounds is not the search's (the Llama 3 405B / 16,384-GPU space screens its first 3,072
     * layouts at 11 ms each and all 407,718 at 0.4 ms on average), so a refusal rests on at least
     * this much of the allowed time, and a search whose estimate fits is never stopped.
     */
    static final double REFUSE_AFTER_SHARE = 0.1;

    /** Estimated wall seconds of the whole search: so far, the rest at the last round's pace, the simulations. */
    public double seconds() {
        return elapsedSeconds + (layouts - screened) * perLayout() + simulations * simulateSeconds / Math.max(1, slots);
    }

    /** Wall seconds per screened layout on the engine, as the last round went. */
    double perLayout() {
        return paceLayouts == 0 ? 0 : paceSeconds / paceLayouts;
    }

    /**
     * The estimate after a round; the simulations are priced as the layouts that fit so far on
     * average ({@code screened} lists the screenings in layout order from the first).
     */
    static PlanWork of(List<Layout> layouts, List<Screening> screened, double elapsedSeconds, int paceLayouts,
                       double paceSeconds, PlanSearch.Frame frame, int simulate, int slots) {
        double tasks = 0;
        int valid = 0;
        for (Screening s : screened) {
            if (s.verdict() == Screening.Verdict.VALID) {
                tasks += tasks(layouts.get(s.index()), frame);
                valid++;
            }
        }
        return new PlanWork(layouts.size(), screened.size(), elapsedSeconds, paceLayouts, paceSeconds,
                valid == 0 ? 0 : simulate, valid == 0 ? 0 : tasks / valid / TASKS_PER_SECOND, slots);
    }

    /** A layout's simulated tasks: every GPU, each microbatch of its replica, each layer of its stage. */
    static double tasks(Layout l, PlanSearch.Frame frame) {
        double microbatches = Math.ceil(frame.globalBatch() / (double) Math.max(1, (long) l.mb() * l.dp()));
        double layersPerStage = Math.ceil(Math.max(1, frame.layers()) / (double) l.pp());
        return (double) frame.gpus() * microbatches * (layersPerStage * TASKS_PER_LAYER + 4);
    }

    /**
     * Refuses the search when its estimate exceeds {@code limitSeconds} and a tenth of that has
     * passed ({@link #REFUSE_AFTER_SHARE}): the message gives the
     * estimate, its parts, the knobs with the most values (each multiplies the layouts by its
     * count) and the flag that raises the limit.
     */
    void requireWithin(double limitSeconds, Map<String, Integer> knobValues) {
        if (seconds() <= limitSeconds || elapsedSeconds < REFUSE_AFTER_SHARE * limitSeconds) {
            return;
        }
        List<Map.Entry<String, Integer>> knobs = new ArrayList<>(knobValues.entrySet());
        knobs.removeIf(e -> e.getValue() < 2);
        knobs.sort(Map.Entry.<String, Integer>comparingByValue().reversed().thenComparing(Map.Entry.comparingByKey()));
        StringBuilder most = new StringBuilder();
        for (int i = 0; i < knobs.size(); i++) {
            most.append(i == 0 ? "" : ", ").append(knobs.get(i).getKey()).append(' ').append(knobs.get(i).getValue());
        }
        throw new InputException(String.format(Locale.ROOT, "the search would take about %s on %d task slot%s, "
                + "more than --max-minutes %s: %,d layouts to screen at %s per layout (the pace of the last "
                + "%,d; %,d screened in %s)%s; narrow the space (values per knob: %s; each multiplies the layouts "
                + "by its count; --space narrow keeps about 200) or raise --max-minutes",
                duration(seconds()), slots, slots == 1 ? "" : "s", minutes(limitSeconds), layouts,
                duration(perLayout()), paceLayouts, screened, duration(elapsedSeconds),
                simulations == 0 ? "" : String.format(Locale.ROOT, ", then %d simulations at about %s each",
                        simulations, duration(simulateSeconds)),
                most.length() == 0 ? "one each" : most));
    }

    private static String minutes(double seconds) {
        double m = seconds / 60;
        return m == Math.rint(m) ? String.valueOf((long) m) : String.valueOf(m);
    }

    /** 3h20m, 4m10s, 2.5 s, 40 ms. */
    static String duration(double seconds) {
        if (seconds >= 3600) {
            long m = Math.round(seconds / 60);
            return m / 60 + "h" + (m % 60 == 0 ? "" : m % 60 + "m");
        }
        if (seconds >= 60) {
            long s = Math.round(seconds);
            return s / 60 + "m" + (s % 60 == 0 ? "" : s % 60 + "s");
        }
        if (seconds >= 1) {
            return String.format(Locale.ROOT, "%.1f s", seconds);
        }
        return String.format(Locale.ROOT, seconds >= 0.01 ? "%.0f ms" : "%.2f ms", seconds * 1e3);
    }
}
