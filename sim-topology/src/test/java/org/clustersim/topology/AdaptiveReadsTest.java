package org.clustersim.topology;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.Random;

import org.junit.jupiter.api.Test;

/**
 * {@link Router#adaptiveReads} names every link whose load the adaptive choice reads: the flow
 * model keeps a phase's routes by those links' loads and takes them again when the loads recur,
 * so a link left out would let a stale route through.
 */
class AdaptiveReadsTest {
    private static final VertexKind SWITCH = VertexKind.SWITCH;

    @Test
    void anAdaptiveRouteDependsOnlyOnTheLoadsOfTheLinksItNames() {
        Random r = new Random(20261123);
        for (Topology t : SampleFabrics.switched()) {
            Router router = t.router();
            LinkStates healthy = LinkStates.healthy(t);
            int links = t.links().size();
            int changedByReads = 0;
            int chosen = 0;
            for (int trial = 0; trial < 400; trial++) {
                int src = r.nextInt(t.deviceCount());
                int dst = (src + 1 + r.nextInt(t.deviceCount() - 1)) % t.deviceCount();
                int channel = r.nextInt(4);
                int[] reads = router.adaptiveReads(src, dst, channel, healthy);
                assertNotNull(reads, t.name() + ": a healthy fabric bounds what the choice reads");
                int[] load = randomLoads(r, links);
                Route route = router.adaptiveRoute(src, dst, channel, healthy, new Router.LinkLoad(load));
                if (reads.length == 0) {
                    assertArrayEquals(router.route(src, dst, channel, healthy).sharedIds(), route.sharedIds(),
                            t.name() + ": a route that reads no load is the static one");
                    continue;
                }
                chosen++;
                for (Link l : route.links()) {
                    if (l.src().kind() == SWITCH && l.dst().kind() == SWITCH) {
                        assertTrue(Arrays.binarySearch(reads, l.id()) >= 0, t.name() + ": crossed link " + l + " is named");
                    }
                }
                int[] elsewhere = load.clone();
                int[] onReads = load.clone();
                for (int id = 0; id < links; id++) {
                    if (Arrays.binarySearch(reads, id) < 0) {
                        elsewhere[id] = r.nextInt(6);
                    } else {
                        onReads[id] = r.nextInt(6);
                    }
                }
                assertArrayEquals(route.sharedIds(),
                        router.adaptiveRoute(src, dst, channel, healthy, new Router.LinkLoad(elsewhere)).sharedIds(),
                        t.name() + ": loads on links not named change nothing");
                if (!Arrays.equals(route.sharedIds(),
                        router.adaptiveRoute(src, dst, channel, healthy, new Router.LinkLoad(onReads)).sharedIds())) {
                    changedByReads++;
                }
            }
            assertTrue(chosen > 100, t.name() + ": routes with a choice: " + chosen);
            // the named loads do steer the choice (the property above is not vacuous)
            assertTrue(changedByReads > chosen / 4, t.name() + ": choices moved by the named loads: " + changedByReads);
        }
    }

    @Test
    void underAFaultTheReadsAreNotBounded() {
        Topology t = SuperPodSpec.h100(2).build();
        LinkStates states = LinkStates.healthy(t);
        Link spineLink = t.links().stream().filter(l -> l.src().kind() == SWITCH && l.dst().kind() == SWITCH)
                .findFirst().orElseThrow();
        int src = 0;
        int dst = t.deviceCount() - 1;
        assertNotNull(t.router().adaptiveReads(src, dst, 0, states));
        states.setFactor(spineLink.id(), 0);
        assertNull(t.router().adaptiveReads(src, dst, 0, states));
        // inside one server nothing is chosen by load, faults or not elsewhere
        assertEquals(0, t.router().adaptiveReads(0, 1, 0, LinkStates.healthy(t)).length);
    }

    private static int[] randomLoads(Random r, int links) {
        int[] load = new int[links];
        for (int i = 0; i < links; i++) {
            load[i] = r.nextInt(6);
        }
        return load;
    }
}
