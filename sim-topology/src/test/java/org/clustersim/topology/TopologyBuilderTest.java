package org.clustersim.topology;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

/** The builder's numbering of parallel links, on vertices with few and with many links out. */
class TopologyBuilderTest {

    /**
     * A hub with hundreds of links out (as the single scale-out switch of a large cluster has)
     * numbers the parallel links to each far end 0, 1, 2 ... in the order they are added, before
     * and after it has more links out than the builder scans.
     */
    @Test
    void parallelLinksAreNumberedPerFarEndOnAHubWithManyLinks() {
        Topology.Builder b = Topology.builder("hub", AcceleratorSpec.H100_SXM);
        Vertex hub = b.addVertex("hub", VertexKind.SWITCH, -1);
        List<Vertex> ends = new ArrayList<>();
        for (int i = 0; i < 150; i++) {
            ends.add(b.addVertex("end" + i, VertexKind.NIC, i));
        }
        List<Link> added = new ArrayList<>();
        // three rounds over every end: each round's link to an end is the next lane
        for (int round = 0; round < 3; round++) {
            for (Vertex end : ends) {
                added.add(b.addLink(hub, end, LinkKind.NIC_SWITCH, 50e9, 100));
            }
        }
        // one more to end 7 after all that, and a first link to a new end
        Vertex late = b.addVertex("late", VertexKind.NIC, 999);
        Link fourth = b.addLink(hub, ends.get(7), LinkKind.NIC_SWITCH, 50e9, 100);
        Link lone = b.addLink(hub, late, LinkKind.NIC_SWITCH, 50e9, 100);
        for (int i = 0; i < added.size(); i++) {
            assertEquals(i / ends.size(), added.get(i).lane(), added.get(i).name());
        }
        assertEquals(3, fourth.lane());
        assertEquals("hub->end7#3", fourth.name());
        assertEquals(0, lone.lane());
        assertEquals("hub->late", lone.name());
    }

    /** The names of a large single-switch cluster's links are unique (each link findable by name). */
    @Test
    void linkNamesOfALargeSwitchedClusterAreUnique() {
        Topology t = SwitchedClusterSpec.dgxH100(40).build();
        assertEquals(t.links().size(), t.links().stream().map(Link::name).distinct().count());
        assertEquals(t.links().get(t.links().size() - 1), t.link("switch0->node39.nic7").orElseThrow());
    }
}
