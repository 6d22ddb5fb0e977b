package org.clustersim.topology;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import org.junit.jupiter.api.Test;

/**
 * The router's hop distances from every switch to every leaf equal a plain breadth-first
 * search over the switch links: leaves that share their switch neighbours take a twin's
 * distances instead of a search of their own, which must change nothing.
 */
class LeafDistancesTest {
    @Test
    void everySwitchIsAsFarFromEachLeafAsASearchFinds() {
        for (Topology t : SampleFabrics.switched()) {
            SwitchedRouter router = (SwitchedRouter) t.router();
            LinkStates healthy = LinkStates.healthy(t);
            List<Vertex> switches = t.vertices().stream().filter(v -> v.kind() == VertexKind.SWITCH).toList();
            List<Vertex> leaves = new ArrayList<>();
            for (Link l : t.links()) {
                if (l.kind() == LinkKind.NIC_SWITCH && l.dst().kind() == VertexKind.SWITCH && !leaves.contains(l.dst())) {
                    leaves.add(l.dst());
                }
            }
            assertTrue(leaves.size() >= 4, t.name());
            int twoOrMore = 0;
            for (Vertex leaf : leaves) {
                int[] expected = search(t, leaf);
                for (Vertex s : switches) {
                    assertEquals(expected[s.id()], router.hops(s, leaf, healthy), t.name() + ": " + s + " to " + leaf);
                    twoOrMore += expected[s.id()] >= 2 ? 1 : 0;
                }
            }
            assertTrue(twoOrMore > 0, t.name());
        }
    }

    /** Hops from every vertex to {@code leaf} over switch-to-switch links (-1: none), by vertex id. */
    private static int[] search(Topology t, Vertex leaf) {
        int[] dist = new int[t.vertices().size()];
        Arrays.fill(dist, -1);
        dist[leaf.id()] = 0;
        ArrayDeque<Vertex> queue = new ArrayDeque<>(List.of(leaf));
        while (!queue.isEmpty()) {
            Vertex v = queue.poll();
            for (Link l : t.graph().incomingEdgesOf(v)) {
                if (l.src().kind() == VertexKind.SWITCH && dist[l.src().id()] < 0) {
                    dist[l.src().id()] = dist[v.id()] + 1;
                    queue.add(l.src());
                }
            }
        }
        return dist;
    }
}
