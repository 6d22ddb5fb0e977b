package org.clustersim.study.plan;

import java.nio.file.Path;

import org.clustersim.study.engine.TaskEngine;
import org.clustersim.study.scenario.Scenario;
import org.clustersim.study.scenario.ScenarioReader;
import org.clustersim.study.SimulatedStep;
import org.clustersim.study.StepFigures;
import org.clustersim.core.input.InputError;
import org.clustersim.core.input.InputFileException;
import org.clustersim.strategies.training.TrainingStep;

/**
 * The two tasks of a plan, each applied to a {@link Candidate} wherever the engine runs it: the
 * candidate's scenario text is read as a file would be, so a task needs nothing but its input.
 */
public final class CandidateTasks {
    private CandidateTasks() {
    }

    /** Reads a candidate's scenario. */
    static Scenario read(Candidate c) {
        return new ScenarioReader().readText(Path.of(c.file()), c.scenario());
    }

    /**
     * Screening: the reader's verdict, the predicted peak memory and, for a candidate that fits,
     * the lower bound on its step from its task graph.
     */
    public static final class Screen implements TaskEngine.Job<Candidate, Screening> {
        private static final long serialVersionUID = 1L;

        @Override
        public Screening apply(Candidate c) {
            Scenario scenario;
            try {
                scenario = read(c);
            } catch (InputFileException e) {
                InputError first = e.errors().get(0);
                return new Screening(c.index(), Screening.Verdict.INVALID, first.path() + ": " + first.message(),
                        first.path().isEmpty() ? "scenario" : first.path(), null, 0, 0);
            }
            long hbm = scenario.cluster().accelerator().hbmBytes();
            TrainingStep step;
            try {
                step = scenario.trainingStep();
            } catch (IllegalArgumentException e) {
                return new Screening(c.index(), Screening.Verdict.INVALID, String.valueOf(e.getMessage()), "layout",
                        null, hbm, 0);
            }
            PeakMemory.Peak memory = PeakMemory.of(step);
            if (memory.peakBytes() > hbm && !scenario.allowOom()) {
                return new Screening(c.index(), Screening.Verdict.OUT_OF_MEMORY, PeakMemory.describe(memory, hbm),
                        "out of memory", memory, hbm, 0);
            }
            long bound = StepBound.of(SimulatedStep.build(scenario, step).graph());
            return new Screening(c.index(), Screening.Verdict.VALID, "", "", memory, hbm, bound);
        }
    }

    /** Simulation: the candidate's step as {@code clustersim run} simulates and measures it ({@link SimulatedStep}). */
    public static final class Simulate implements TaskEngine.Job<Candidate, Evaluation> {
        private static final long serialVersionUID = 1L;

        @Override
        public Evaluation apply(Candidate c) {
            Scenario scenario = read(c);
            StepFigures s = SimulatedStep.of(scenario, scenario.trainingStep(), false).figures();
            long hbm = scenario.cluster().accelerator().hbmBytes();
            return new Evaluation(c.index(), s.stepTimeNs(), s.mfu(), s.bubbleFraction(), s.exposedCommFraction(),
                    s.exposedByKindNs(), s.interferenceFraction(), s.peakMemoryBytes(),
                    s.peakMemoryBytes() > hbm && !scenario.allowOom());
        }
    }
}
