package org.clustersim.study.plan;

import java.io.Serializable;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.clustersim.core.input.InputError;
import org.clustersim.core.input.InputFileException;
import org.clustersim.study.SimulatedStep;
import org.clustersim.study.StepFigures;
import org.clustersim.study.engine.TaskEngine;
import org.clustersim.study.scenario.Scenario;
import org.clustersim.study.scenario.ScenarioReader;
import org.clustersim.strategies.training.StepWalk;
import org.clustersim.strategies.training.TrainingStep;

/**
 * The two tasks of a plan, each applied wherever the engine runs it and needing nothing but its
 * input: screening a batch of layouts (built from one probe scenario, {@link LayoutSteps}, and
 * estimated with {@link StepWalk}), and simulating a candidate (its scenario text read as a file
 * would be).
 */
public final class CandidateTasks {
    private CandidateTasks() {
    }

    /** Reads a candidate's scenario. */
    static Scenario read(Candidate c) {
        return new ScenarioReader().readText(Path.of(c.file()), c.scenario());
    }

    /**
     * Layouts screened together: their indices start at {@code first}.
     *
     * @param first   the first layout's index
     * @param layouts the layouts
     */
    public record Batch(int first, List<Layout> layouts) implements Serializable {
        private static final long serialVersionUID = 1L;

        public Batch {
            layouts = List.copyOf(layouts);
        }
    }

    /**
     * Screening of a batch: each layout's step from the probe scenario, its predicted peak memory
     * and, where it fits, its estimated step. The probe's scenario, cluster and the estimates'
     * shared timings are kept between batches, so a batch after the first starts warm; each
     * figure depends on its layout alone.
     */
    public static final class Screen implements TaskEngine.Job<Batch, ArrayList<Screening>> {
        private static final long serialVersionUID = 1L;
        /**
         * Per probe text, the prepared states not in use: the steps' source and the estimates'
         * shared timings. A batch borrows one (a cluster's router memoises routes without locking,
         * so no two batches share one at a time) and gives it back, so there are as many as batches
         * ran at once; {@link #release} drops a plan's when its screening is done.
         */
        private static final Map<String, java.util.Deque<Prepared>> IDLE = new java.util.concurrent.ConcurrentHashMap<>();

        private record Prepared(LayoutSteps steps, StepWalk.Context context) {
        }

        private final String probeFile;
        private final String probeText;
        private final String baseText;
        private final String folder;
        private final int layers;

        /**
         * @param probeFile the probe's nominal path (relative paths resolve against its folder)
         * @param probeText a candidate's scenario text that the reader accepts
         * @param base      the plan's base
         * @param layers    the model's layers
         */
        public Screen(String probeFile, String probeText, BaseScenario base, int layers) {
            this.probeFile = probeFile;
            this.probeText = probeText;
            this.baseText = base.text();
            this.folder = base.folder().toString();
            this.layers = layers;
        }

        private Prepared borrow() {
            Prepared p = IDLE.computeIfAbsent(probeText, k -> new java.util.concurrent.ConcurrentLinkedDeque<>())
                    .pollFirst();
            if (p == null) {
                Scenario probe = new ScenarioReader().readText(Path.of(probeFile), probeText);
                BaseScenario base = BaseScenario.fromText(baseText, folder, null);
                p = new Prepared(new LayoutSteps(probe, base.stated(), layers), StepWalk.context());
            }
            return p;
        }

        /** Drops the prepared states of the plan whose probe is {@code probeText} (its screening is done). */
        public static void release(String probeText) {
            IDLE.remove(probeText);
        }

        @Override
        public ArrayList<Screening> apply(Batch batch) {
            Prepared p = borrow();
            try {
                long hbm = p.steps().probe().cluster().accelerator().hbmBytes();
                ArrayList<Screening> out = new ArrayList<>(batch.layouts().size());
                for (int i = 0; i < batch.layouts().size(); i++) {
                    out.add(screen(p, batch.first() + i, batch.layouts().get(i), hbm));
                }
                return out;
            } finally {
                IDLE.computeIfAbsent(probeText, k -> new java.util.concurrent.ConcurrentLinkedDeque<>()).addFirst(p);
            }
        }

        private static Screening screen(Prepared p, int index, Layout l, long hbm) {
            try {
                return screenOrThrow(p, index, l, hbm);
            } catch (IllegalArgumentException | IllegalStateException e) {
                // a layout the schedule, the placement or the layout rules refuse
                return new Screening(index, Screening.Verdict.INVALID, String.valueOf(e.getMessage()), "layout",
                        null, hbm, 0);
            }
        }

        private static Screening screenOrThrow(Prepared p, int index, Layout l, long hbm) {
            Scenario scenario;
            TrainingStep step;
            try {
                scenario = p.steps().scenario(l);
                step = p.steps().step(scenario);
            } catch (IllegalArgumentException e) {
                return new Screening(index, Screening.Verdict.INVALID, String.valueOf(e.getMessage()), "layout",
                        null, hbm, 0);
            }
            PeakMemory.Peak memory = PeakMemory.of(step);
            if (memory.peakBytes() > hbm && !scenario.allowOom()) {
                return new Screening(index, Screening.Verdict.OUT_OF_MEMORY, PeakMemory.describe(memory, hbm),
                        "out of memory", memory, hbm, 0);
            }
            long estimate;
            try {
                estimate = StepWalk.stepNs(step, LayoutSteps.sequence(scenario), p.context());
            } catch (IllegalArgumentException | IllegalStateException e) {
                return new Screening(index, Screening.Verdict.INVALID, String.valueOf(e.getMessage()), "layout",
                        memory, hbm, 0);
            }
            return new Screening(index, Screening.Verdict.VALID, "", "", memory, hbm, estimate);
        }
    }

    /** Reads a candidate's scenario, or says why the reader rejects it. */
    static String rejection(Candidate c) {
        try {
            read(c);
            return null;
        } catch (InputFileException e) {
            InputError first = e.errors().get(0);
            return first.path() + ": " + first.message();
        }
    }

    /**
     * Simulation: the candidate's step as {@code clustersim run} simulates and measures it
     * ({@link SimulatedStep}); a candidate the scenario reader rejects comes back marked so.
     */
    public static final class Simulate implements TaskEngine.Job<Candidate, Evaluation> {
        private static final long serialVersionUID = 1L;

        @Override
        public Evaluation apply(Candidate c) {
            Scenario scenario;
            try {
                scenario = read(c);
            } catch (InputFileException e) {
                InputError first = e.errors().get(0);
                return Evaluation.rejected(c.index(), first.path() + ": " + first.message());
            }
            StepFigures s = simulate(scenario, SimulationHeap.JVM);
            long hbm = scenario.cluster().accelerator().hbmBytes();
            return new Evaluation(c.index(), s.stepTimeNs(), s.mfu(), s.pipelineBubbleFraction(),
                    s.exposedCommFraction(), s.otherWaitFraction(), s.exposedByKindNs(), s.interferenceFraction(), s.peakMemoryBytes(),
                    s.peakMemoryBytes() > hbm && !scenario.allowOom(), "");
        }

        /**
         * The scenario's step simulated as {@link SimulatedStep#of(Scenario, TrainingStep, boolean)}
         * does, its graph built in turn and its footprint held on {@code heap} while it runs.
         */
        static StepFigures simulate(Scenario scenario, SimulationHeap heap) {
            TrainingStep step = scenario.trainingStep();
            TrainingStep.Built built;
            long bytes;
            try {
                heap.awaitTurn();
                try {
                    // the plan reads figures only: its candidates' tasks keep no names
                    built = SimulatedStep.buildUnnamed(scenario, step);
                    bytes = SimulationHeap.footprint(built.graph());
                } catch (RuntimeException | Error e) {
                    heap.endTurn();
                    throw e;
                }
                heap.hold(bytes);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new java.util.concurrent.CancellationException("plan simulation interrupted");
            }
            try {
                return SimulatedStep.of(scenario, step, built, step.topology(), scenario.faultEvents(step.topology()),
                        scenario.output().linkCounters()).figures();
            } finally {
                heap.release(bytes);
            }
        }
    }
}
