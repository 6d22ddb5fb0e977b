package org.clustersim.study.goodput;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.clustersim.study.engine.EmbeddedPool;
import org.clustersim.study.scenario.Scenario;
import org.clustersim.study.scenario.ScenarioReader;
import org.clustersim.core.reliability.FailureClass;
import org.clustersim.core.reliability.LongRun;
import org.junit.jupiter.api.Test;

/** The goodput study against independent oracles: Young/Daly's interval, Poisson counts, a hand-computed CI. */
class GoodputStudyTest {
    /** 100 GPUs of 200 h MTBF: the job fails every 2 h. */
    private static final List<FailureClass> FAILURES = List.of(new FailureClass("gpu", 100, 200));
    private static final double DAYS_S = 60 * 86_400;

    @Test
    void theSweepsBestIntervalIsYoungDalysWithinTheSweepsResolution() {
        double save = 60;
        LongRun probe = new LongRun(DAYS_S, 1, save, 60, FAILURES);
        double oracle = Math.sqrt(2 * save * 7200); // Young/Daly from the MTBF, not from the code under test
        List<Replications.SweepPoint> sweep;
        try (EmbeddedPool pool = new EmbeddedPool(2)) {
            sweep = new Replications(64, 7).sweep(pool, probe);
        }
        assertEquals(Replications.SWEEP_POINTS, sweep.size());
        assertEquals(oracle / 4, sweep.get(0).intervalSeconds(), 1e-6);
        assertEquals(oracle * 4, sweep.get(sweep.size() - 1).intervalSeconds(), 1e-6);
        double best = Replications.best(sweep, -1);
        double steps = Math.abs(Math.log(best / oracle) / Math.log(Math.pow(2, 0.25)));
        assertTrue(steps <= 1 + 1e-9, "best " + best + " s is " + steps + " sweep steps from Young/Daly's " + oracle);
        double bestFraction = sweep.stream().mapToDouble(Replications.SweepPoint::effectiveTrainingFraction).max()
                .orElseThrow();
        assertTrue(sweep.get(0).effectiveTrainingFraction() < bestFraction - 0.01
                && sweep.get(sweep.size() - 1).effectiveTrainingFraction() < bestFraction - 0.01,
                "a quarter or four times the best interval costs more than a point: " + sweep);
    }

    @Test
    void replicatedInterruptionsConvergeOnThePoissonMean() {
        LongRun run = new LongRun(DAYS_S, 1800, 60, 60, FAILURES);
        double expected = DAYS_S / 7200; // failures over the run, restarts included
        Mean few;
        Mean many;
        try (EmbeddedPool pool = new EmbeddedPool(2)) {
            few = interruptions(new Replications(16, 1).of(pool, List.of(run)).get(0));
            many = interruptions(new Replications(256, 1).of(pool, List.of(run)).get(0));
        }
        assertTrue(many.low() <= expected && expected <= many.high(), expected + " outside " + many);
        assertTrue(Math.abs(many.mean() - expected) < expected * 0.01, many + " against " + expected);
        // 16 times the replications, a quarter of the interval: sqrt(720 / 16) = 6.7 against 1.6
        assertEquals(4, few.halfWidth() / many.halfWidth(), 1.2);
        assertEquals(1.96 * Math.sqrt(expected) / 16, many.halfWidth(), 0.2 * many.halfWidth());
    }

    private static Mean interruptions(List<LongRun.Outcome> outcomes) {
        return Mean.of(outcomes.stream().mapToDouble(LongRun.Outcome::interruptions).toArray());
    }

    @Test
    void replicationsAreTheSameOnAnyThreadCount() {
        LongRun run = new LongRun(DAYS_S, 900, 30, 300, FAILURES);
        List<LongRun.Outcome> one;
        List<LongRun.Outcome> three;
        try (EmbeddedPool a = new EmbeddedPool(1); EmbeddedPool b = new EmbeddedPool(3)) {
            one = new Replications(9, 5).of(a, List.of(run, run.withInterval(1800))).get(1);
            three = new Replications(9, 5).of(b, List.of(run, run.withInterval(1800))).get(1);
        }
        assertEquals(run.withInterval(1800).replicate(9, 5), one);
        assertEquals(one, three);
    }

    @Test
    void theMeanAndItsConfidenceIntervalByHand() {
        Mean m = Mean.of(new double[] {1, 2, 3, 4});
        assertEquals(2.5, m.mean(), 1e-12);
        // sample sd sqrt(5/3) = 1.2910, 1.96 x 1.2910 / 2 = 1.2652
        assertEquals(1.2652, m.halfWidth(), 1e-4);
        assertEquals(0, Mean.of(new double[] {5}).halfWidth());
    }

    @Test
    void aStudyOfAScenarioTrainsItsStepsTokens() {
        Scenario s = new ScenarioReader().read(Path.of("..", "scenarios", "gpt3-1.3b-pp4-gpipe.yaml"));
        GoodputInput input = new GoodputInput(30, new CheckpointInterval.YoungDaly(), 60, 300, 20, 1e9, 1e9, 1e9, 8, 3);
        GoodputStudy study = GoodputStudy.of(s, input);
        assertTrue(!study.step().failed());
        GoodputResult r;
        try (EmbeddedPool pool = new EmbeddedPool(2)) {
            r = study.run(pool);
        }
        assertEquals("gpu", r.failureClasses().get(0).name());
        assertEquals(4, r.failureClasses().get(0).count(), "the scenario's 4 GPUs");
        // 4 GPUs of 20 h: the job fails every 5 h (hosts, cables and switches at 1e9 h barely count)
        assertEquals(Math.sqrt(2 * 60 * 5 * 3600), r.intervalS(), 1);
        assertEquals(30 * 24 / 5.0, r.interruptions().mean(), 3 * r.interruptions().halfWidth() + 1);
        double fractions = r.effectiveFraction().mean() + r.savingFraction().mean() + r.restartingFraction().mean()
                + r.redoneFraction().mean();
        assertEquals(1, fractions, 1e-6, "the run's time is trained, saved, restarted or redone");
        double fullSpeed = 30 * 86_400 / r.stepS() * s.training().globalBatch() * s.training().seqLen();
        assertEquals(r.effectiveFraction().mean() * fullSpeed, r.tokens().mean(), 1e-6 * fullSpeed);
        assertTrue(r.tokens().mean() < 0.99 * fullSpeed && r.tokens().mean() > 0.8 * fullSpeed, r.tokens().toString());
    }
}
