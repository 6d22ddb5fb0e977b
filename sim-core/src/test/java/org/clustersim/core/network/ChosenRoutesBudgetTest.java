package org.clustersim.core.network;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.nio.IntBuffer;
import java.util.List;

import org.clustersim.topology.Route;
import org.junit.jupiter.api.Test;

/**
 * The adaptive choices kept by loads are bounded for a whole run, not per phase alone: a
 * 16K-GPU plan candidate's shared ring steps kept gigabytes when only each phase was bounded.
 * Past the budget a choice is still the last one (its classes are reused when the routes
 * repeat) but no longer found by its loads.
 */
class ChosenRoutesBudgetTest {
    private static final int[] READS = {0, 1, 2, 3};

    /** Remembers one choice per value of link 0's load, {@code first} to {@code first + n - 1}. */
    private static void remember(ChosenRoutes chosen, int first, int n) {
        int[] load = new int[READS.length];
        int[] linkCount = new int[READS.length];
        for (int k = first; k < first + n; k++) {
            load[0] = k;
            IntBuffer loads = chosen.loads(load);
            assertNull(chosen.find(loads), "loads " + k + " met for the first time");
            chosen.remember(loads, new Route[] {new Route(List.of())}, List.of(), linkCount);
        }
    }

    private static ChosenRoutes.Choice find(ChosenRoutes chosen, int load0) {
        int[] load = new int[READS.length];
        load[0] = load0;
        return chosen.find(chosen.loads(load));
    }

    @Test
    void choicesPastTheBudgetAreNotKeptByLoads() {
        // each choice holds its 4 loads and 1 route: room for two
        ChosenRoutes.Budget budget = new ChosenRoutes.Budget(2 * (READS.length + 1));
        ChosenRoutes chosen = new ChosenRoutes(READS, budget);
        remember(chosen, 0, 3);
        assertEquals(2, chosen.kept());
        assertNotNull(find(chosen, 0));
        assertNotNull(find(chosen, 1));
        assertNull(find(chosen, 2), "the third choice is over the budget");
        assertEquals(0, budget.left());
    }

    @Test
    void theBudgetIsSharedByEveryPhaseOfARun() {
        ChosenRoutes.Budget budget = new ChosenRoutes.Budget(3 * (READS.length + 1));
        ChosenRoutes first = new ChosenRoutes(READS, budget);
        ChosenRoutes second = new ChosenRoutes(READS, budget);
        remember(first, 0, 2);
        remember(second, 0, 2);
        assertEquals(2, first.kept());
        assertEquals(1, second.kept(), "the second phase gets what the first left");
        assertNotNull(find(second, 0));
        assertNull(find(second, 1));
    }

    @Test
    void withinTheBudgetAKeptChoiceIsFoundAgain() {
        ChosenRoutes chosen = new ChosenRoutes(READS, new ChosenRoutes.Budget(ChosenRoutes.Budget.RUN));
        remember(chosen, 0, 40);
        assertEquals(40, chosen.kept());
        ChosenRoutes.Choice c = find(chosen, 17);
        assertNotNull(c);
        assertSame(c, find(chosen, 17));
    }
}
