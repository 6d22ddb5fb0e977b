package org.clustersim.study.plan;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import org.clustersim.core.input.InputException;

/** The plan's work estimate from its pace, and the refusal it words (issue 34, item 8). */
class PlanWorkTest {
    /** 1,000 layouts, 100 screened in 10 s, the last 100 in 5 s; 10 simulations of 4 s on 2 slots. */
    private static final PlanWork WORK = new PlanWork(1000, 100, 10, 100, 5, 10, 4, 2);

    @Test
    void theEstimateIsTheTimeSoFarTheRestAtTheLastPaceAndTheSimulationsOnTheSlots() {
        // 10 s so far + 900 layouts x 50 ms + 10 x 4 s / 2 slots
        assertEquals(10 + 45 + 20, WORK.seconds(), 1e-9);
    }

    @Test
    void aSearchOverTheLimitIsRefusedOnlyOnceATenthOfTheLimitHasPassed() {
        Map<String, Integer> knobs = new LinkedHashMap<>();
        knobs.put("--tp", 4);
        knobs.put("--pp", 7);
        knobs.put("--ep", 1);
        knobs.put("--cp", 4);
        // 75 s estimated against 60: refused after 10 s (a sixth of the limit)
        InputException e = assertThrows(InputException.class, () -> WORK.requireWithin(60, knobs));
        assertEquals("the search would take about 1m15s on 2 task slots, more than --max-minutes 1: 1,000 layouts to "
                + "screen at 50 ms per layout (the pace of the last 100; 100 screened in 10.0 s), then 10 simulations "
                + "at about 4.0 s each; narrow the space (values per knob: --pp 7, --cp 4, --tp 4; each multiplies "
                + "the layouts by its count; --space narrow keeps about 200) or raise --max-minutes", e.getMessage());
        // 70 s estimated against 60, but only 5 s have passed (under a tenth): the pace may still change
        PlanWork early = new PlanWork(1000, 100, 5, 100, 5, 10, 4, 2);
        assertEquals(70, early.seconds(), 1e-9);
        assertDoesNotThrow(() -> early.requireWithin(60, knobs));
        // and one within the limit goes on whatever has passed
        assertDoesNotThrow(() -> WORK.requireWithin(75, knobs));
    }

    @Test
    void aSearchScreenedInRoundsFindsWhatItFindsInOneGo() {
        BaseScenario base = BaseScenario.of(null, "gpt3-1.3b", "dgx-h100", 1, 64, 1024);
        DesignSpace w = DesignSpace.wide(base.model(), base.layers(), base.seqLen());
        // the wide space without activation offload: a quarter of it, still many rounds
        DesignSpace space = new DesignSpace(w.schedule(), w.tp(), w.pp(), w.cp(), w.cpVariant(), w.ep(), w.etp(),
                w.vp(), w.mb(), w.recompute(), w.recomputeModules(), w.zero(), w.zero3Impl(), w.overlapParamGather(),
                w.tpOverlap(), w.bucketMB(), List.of(0), w.model());
        try (org.clustersim.study.engine.EmbeddedPool pool = new org.clustersim.study.engine.EmbeddedPool(1)) {
            PlanSearch.Result once = new PlanSearch(base, space, 2).run(pool, null, false);
            PlanSearch.Result rounds = new PlanSearch(base, space, 2).run(pool, null, false, 1e9);
            // rounds of 2, 4 and 8 batches at least, on one slot
            assertTrue(once.layouts().size() > 14 * PlanSearch.BATCH, once.layouts().size() + " layouts");
            assertEquals(once.screenings(), rounds.screenings());
            assertEquals(once.ranking(), rounds.ranking());
        }
    }
}
