package org.clustersim.study.plan;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.clustersim.core.input.InputException;
import org.clustersim.study.engine.Progress;
import org.clustersim.study.engine.TaskEngine;

/**
 * A design-space search in two tiers (issue 33): every layout of a {@link DesignSpace} is screened
 * (its step formed from one probe scenario, its peak memory predicted, its step estimated without
 * simulating, {@link org.clustersim.strategies.training.StepWalk}); then the best-estimated layouts
 * that fit are written as scenarios and simulated, and the simulated ones are ranked by step time.
 *
 * <p>The estimate ranks; the simulation decides. Layouts are screened in batches of a fixed size
 * and simulated in waves of {@code simulate} candidates taken in order of their estimate (ties by
 * index; the best few of every schedule first, so that no schedule goes unsimulated because the
 * estimate favours another) until that many have been simulated and fit, or none are left; a candidate whose file the
 * scenario reader rejects or whose simulated peak exceeds HBM makes room for the next. Batches and
 * waves are fixed by the inputs, not by how many threads or machines run them or in which order
 * their tasks finish, so every output depends on the inputs alone.
 */
public final class PlanSearch {
    /** Layouts per screening task: large enough that a task's overhead vanishes, small enough to spread. */
    static final int BATCH = 256;
    private final BaseScenario base;
    private final DesignSpace space;
    private final int simulate;

    /** @param simulate how many of the best-estimated layouts to simulate (at least the rows printed) */
    public PlanSearch(BaseScenario base, DesignSpace space, int simulate) {
        if (simulate < 1) {
            throw new IllegalArgumentException("simulate at least one candidate");
        }
        this.base = base;
        this.space = space;
        this.simulate = simulate;
    }

    /** The shape of the problem: the cluster's GPUs, its GPU's HBM, the model's layers, batch and sequence. */
    public record Frame(int gpus, long hbmBytes, int layers, String clusterName, int globalBatch, int seqLen,
                        String modelName) {
        /** Tokens per step. */
        public long tokensPerStep() {
            return (long) globalBatch * seqLen;
        }
    }

    /** The problem's shape as the base states it (HBM unknown, -1, until a candidate has been read). */
    public Frame frame() {
        return new Frame(base.gpus(), -1, base.layers(), base.clusterLabel(), base.globalBatch(), base.seqLen(),
                base.modelName());
    }

    /** Layout {@code l} at {@code index} as a candidate: its scenario's name, nominal file and text. */
    Candidate candidate(int index, Layout l) {
        String name = base.modelName() + "-" + l.slug();
        return new Candidate(index, l, name, base.folder().resolve(name + ".yaml").toString(),
                base.scenarioText(name, l, frame().layers()));
    }

    /**
     * Everything a search found.
     *
     * @param frame       the problem's shape
     * @param layouts     the layouts formed, in enumeration order (a layout's index is its position)
     * @param dropped     layouts that could not be formed, by reason
     * @param screenings  each layout's screening, in layout order
     * @param candidates  the simulated layouts' scenarios by index
     * @param evaluations simulated candidates by index
     * @param ranking     simulated candidates that fit in memory, fastest first (ties: lower index)
     * @param skipped     layouts that fit but were not simulated
     * @param waves       waves simulated
     */
    public record Result(Frame frame, List<Layout> layouts, Map<String, Integer> dropped,
                         List<Screening> screenings, Map<Integer, Candidate> candidates,
                         Map<Integer, Evaluation> evaluations, List<Evaluation> ranking, int skipped, int waves) {
        /** Layouts screened as {@code v}. */
        public long count(Screening.Verdict v) {
            return screenings.stream().filter(s -> s.verdict() == v).count();
        }

        /** Screening failures of one verdict by reason kind. */
        public Map<String, Integer> reasons(Screening.Verdict v) {
            Map<String, Integer> m = new TreeMap<>();
            screenings.stream().filter(s -> s.verdict() == v).forEach(s -> m.merge(s.reasonKey(), 1, Integer::sum));
            return m;
        }

        /** The winner's scenario text (the ranking's first). */
        public Candidate winner() {
            return candidates.get(ranking.get(0).index());
        }
    }

    /** Runs the search on {@code engine}, reporting progress on {@code err} (null: silent), however long it takes. */
    public Result run(TaskEngine engine, PrintWriter err, boolean terminal) {
        return run(engine, err, terminal, Double.POSITIVE_INFINITY);
    }

    /**
     * Runs the search on {@code engine}, reporting progress on {@code err} (null: silent), unless
     * its estimated work ({@link PlanWork}) exceeds {@code limitSeconds}: the batches are screened
     * in rounds, in order, each twice the last (from two batches per task slot), and after each
     * round from the second the estimate from its pace is checked. Every layout's screening
     * depends on the layout alone, so the results are the same in rounds or in one go.
     */
    public Result run(TaskEngine engine, PrintWriter err, boolean terminal, double limitSeconds) {
        Frame stated = frame();
        DesignSpace.Enumeration e = space.enumerate(stated.gpus(), stated.globalBatch(), stated.layers());
        List<Layout> layouts = e.layouts();
        if (layouts.isEmpty()) {
            throw new InputException("no layout of the design space fits " + stated.gpus() + " GPUs; left out: "
                    + byCount(e.dropped()) + "; widen the knobs (--tp, --pp, --cp, --mb) or change --nodes or "
                    + "--global-batch");
        }
        Candidate probe = probe(layouts);
        List<CandidateTasks.Batch> batches = new ArrayList<>();
        for (int first = 0; first < layouts.size(); first += BATCH) {
            batches.add(new CandidateTasks.Batch(first, layouts.subList(first, Math.min(layouts.size(),
                    first + BATCH))));
        }
        Progress screenProgress = progress(err, terminal, batches.size(), "plan screening", "batches of " + BATCH
                + " layouts");
        CandidateTasks.Screen screen = new CandidateTasks.Screen(probe.file(), probe.scenario(), base, stated.layers());
        List<Screening> screenings = new ArrayList<>(layouts.size());
        boolean limited = limitSeconds < Double.POSITIVE_INFINITY;
        int slots = Math.max(1, engine.slots());
        int round = limited ? PlanWork.FIRST_ROUND_PER_SLOT * slots : batches.size();
        long start = System.nanoTime();
        for (int next = 0, rounds = 0; next < batches.size(); rounds++) {
            int end = Math.min(batches.size(), next + round);
            int before = screenings.size();
            long t0 = System.nanoTime();
            for (List<Screening> part : engine.map(batches.subList(next, end), screen, screenProgress)) {
                screenings.addAll(part);
            }
            long t1 = System.nanoTime();
            next = end;
            // from the second round on: the first ran cold (code and caches), several times slower
            if (limited && next < batches.size() && rounds >= 1) {
                try {
                    PlanWork.of(layouts, screenings, (t1 - start) / 1e9, screenings.size() - before, (t1 - t0) / 1e9,
                            stated, simulate, slots).requireWithin(limitSeconds, knobValues());
                } catch (InputException refused) {
                    screenProgress.finish();
                    CandidateTasks.Screen.release(probe.scenario());
                    throw refused;
                }
            }
            round = Math.min(round * 2, PlanWork.MAX_ROUND_PER_SLOT * slots);
        }
        screenProgress.finish();
        // the screening's caches (a cluster per thread, timings) make room for the simulations
        CandidateTasks.Screen.release(probe.scenario());
        long hbm = screenings.get(0).hbmBytes();
        Frame frame = new Frame(stated.gpus(), hbm, stated.layers(), stated.clusterName(), stated.globalBatch(),
                stated.seqLen(), stated.modelName());

        List<Screening> fit = new ArrayList<>();
        for (Screening s : screenings) {
            if (s.verdict() == Screening.Verdict.VALID) {
                fit.add(s);
            }
        }
        fit.sort(Comparator.comparingLong(Screening::estimateNs).thenComparingInt(Screening::index));
        fit = withEachScheduleFirst(fit, layouts);
        Map<Integer, Candidate> candidates = new TreeMap<>();
        Map<Integer, Evaluation> evaluations = new TreeMap<>();
        Progress simProgress = progress(err, terminal, Math.min(simulate, fit.size()), "plan simulation",
                "candidates");
        int next = 0;
        int waves = 0;
        int ranked = 0;
        while (ranked < simulate && next < fit.size()) {
            List<Candidate> batch = new ArrayList<>();
            while (next < fit.size() && batch.size() < simulate - ranked) {
                Screening s = fit.get(next++);
                Candidate c = candidate(s.index(), layouts.get(s.index()));
                candidates.put(c.index(), c);
                batch.add(c);
            }
            if (waves > 0) {
                simProgress.add(batch.size());
            }
            waves++;
            for (Evaluation ev : engine.map(batch, new CandidateTasks.Simulate(), simProgress)) {
                evaluations.put(ev.index(), ev);
                if (ev.ranked()) {
                    ranked++;
                }
            }
        }
        simProgress.finish();
        List<Evaluation> ranking = new ArrayList<>();
        for (Evaluation ev : evaluations.values()) {
            if (ev.ranked()) {
                ranking.add(ev);
            }
        }
        ranking.sort(Comparator.comparingLong(Evaluation::stepTimeNs).thenComparingInt(Evaluation::index));
        return new Result(frame, layouts, e.dropped(), screenings, candidates, evaluations, ranking,
                fit.size() - next, waves);
    }

    /**
     * The layouts in the order they are simulated: the best few by estimate of every schedule
     * first (so that a schedule the estimate flatters or wrongs still has its best simulated;
     * {@code simulate / (2 x schedules)}, at least one, each), then the rest by estimate.
     */
    private List<Screening> withEachScheduleFirst(List<Screening> byEstimate, List<Layout> layouts) {
        Map<String, Integer> taken = new TreeMap<>();
        for (Screening s : byEstimate) {
            taken.putIfAbsent(layouts.get(s.index()).schedule(), 0);
        }
        int each = Math.max(1, simulate / (2 * Math.max(1, taken.size())));
        List<Screening> first = new ArrayList<>();
        List<Screening> rest = new ArrayList<>();
        for (Screening s : byEstimate) {
            String schedule = layouts.get(s.index()).schedule();
            if (taken.get(schedule) < each) {
                taken.merge(schedule, 1, Integer::sum);
                first.add(s);
            } else {
                rest.add(s);
            }
        }
        List<Screening> order = new ArrayList<>(first);
        order.addAll(rest);
        return order;
    }

    /**
     * The scenario every screening task builds its layouts' steps from: the first layout, with its
     * options left to the base, whose file the scenario reader accepts.
     */
    private Candidate probe(List<Layout> layouts) {
        String first = null;
        for (int i = 0; i < layouts.size(); i++) {
            Layout l = layouts.get(i);
            Candidate c = candidate(i, new Layout(l.tp(), l.pp(), l.cp(), l.ep(), l.vp(), l.dp(), l.mb(),
                    l.recompute(), l.zero(), l.schedule()));
            String why = CandidateTasks.rejection(c);
            if (why == null) {
                return c;
            }
            if (first == null) {
                first = layouts.get(0).label() + ": " + why;
            }
            if (i >= 1000) {
                break;
            }
        }
        throw new InputException("no layout of the search is a valid scenario; the first: " + first);
    }

    /** How many values each knob of the space takes, by its option's name. */
    private Map<String, Integer> knobValues() {
        Map<String, Integer> n = new java.util.LinkedHashMap<>();
        n.put("--schedule", space.schedule().size());
        n.put("--tp", space.tp().size());
        n.put("--pp", space.pp().size());
        n.put("--cp", space.cp().size());
        n.put("--cp-variant", space.cpVariant().size());
        n.put("--ep", space.ep().size());
        n.put("--etp", space.etp().size());
        n.put("--vp", space.vp().size());
        n.put("--mb", space.mb().size());
        n.put("--recompute", space.recompute().size());
        n.put("--recompute-modules", space.recomputeModules().size());
        n.put("--zero", space.zero().size());
        n.put("--zero3-impl", space.zero3Impl().size());
        n.put("--param-gather", space.overlapParamGather().size());
        n.put("--tp-overlap", space.tpOverlap().size());
        n.put("--bucket-mb", space.bucketMB().size());
        n.put("--offload", space.offloadLayers().size());
        return n;
    }

    /** Counts by reason as {@code reason: count; ...}, the largest first (ties by reason). */
    static String byCount(Map<String, Integer> counts) {
        return counts.entrySet().stream()
                .sorted(Map.Entry.<String, Integer>comparingByValue().reversed().thenComparing(Map.Entry.comparingByKey()))
                .map(x -> x.getKey() + ": " + x.getValue()).collect(java.util.stream.Collectors.joining("; "));
    }

    private static Progress progress(PrintWriter err, boolean terminal, int total, String label, String unit) {
        return err == null ? Progress.silent() : new Progress(err, total, terminal, label, unit);
    }

    /** Where the candidates' nominal files live (for messages). */
    public Path folder() {
        return base.folder();
    }
}
