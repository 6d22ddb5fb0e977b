package org.clustersim.core.network;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;

import org.clustersim.core.engine.Flow;
import org.clustersim.topology.AcceleratorSpec;
import org.clustersim.topology.Link;
import org.clustersim.topology.Route;
import org.clustersim.topology.SwitchedClusterSpec;
import org.clustersim.topology.Topology;
import org.junit.jupiter.api.Test;

/** How {@link FlowClass#find} splits a phase into classes, on fabrics small enough to count by hand. */
class FlowClassFindTest {
    private static final double NVLINK = 400e9;
    private static final double NIC = 50e9;

    /** Two servers of four GPUs on one switch: 400 GB/s NVLink, 50 GB/s NICs. */
    private static Topology twoServers() {
        return new SwitchedClusterSpec("two", AcceleratorSpec.H100_SXM, 2, 4, NVLINK, 0, NIC, 0, 0).build();
    }

    private static List<FlowClass> find(Topology t, List<Flow> flows) {
        Route[] routes = new Route[flows.size()];
        for (int i = 0; i < routes.length; i++) {
            Flow f = flows.get(i);
            routes[i] = t.route(f.srcDevice(), f.dstDevice(), f.channel());
        }
        double[] capacity = new double[t.links().size()];
        for (Link l : t.links()) {
            capacity[l.id()] = l.bandwidthBytesPerS() / 1e9;
        }
        return FlowClass.find(flows, routes, capacity, new FlowClass.Scratch(capacity.length));
    }

    @Test
    void aDirectAllToAllIsItsNvlinkHalfAndItsNetworkHalf() {
        Topology t = twoServers();
        List<Flow> flows = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            for (int j = 0; j < 8; j++) {
                if (i != j) {
                    boolean local = i / 4 == j / 4;
                    flows.add(new Flow(i, j, local ? 3_000_000 : 1_000_000));
                }
            }
        }
        List<FlowClass> classes = find(t, flows);
        assertEquals(2, classes.size());
        FlowClass nvlink = classes.get(0).bytes == 3_000_000 ? classes.get(0) : classes.get(1);
        FlowClass network = nvlink == classes.get(0) ? classes.get(1) : classes.get(0);
        // each GPU sends 3 flows over its NVLink port and 4 over its NIC
        assertEquals(24, nvlink.flows.length);
        assertEquals(NVLINK / 1e9 / 3, nvlink.rate, 1e-12);
        assertEquals(32, network.flows.length);
        assertEquals(NIC / 1e9 / 4, network.rate, 1e-12);
        for (FlowClass c : classes) {
            for (boolean binding : c.binding) {
                assertTrue(binding, "every link of a symmetric exchange binds");
            }
            for (int k = 0; k < c.flows.length; k++) {
                assertEquals(flows.get(c.index[k]), c.flows[k], "members keep their place in the phase");
            }
        }
    }

    @Test
    void aLinkWithSpareCapacityDoesNotBindAndAMemberWithoutABindingLinkSpoilsItsGroup() {
        Topology t = twoServers();
        // GPUs 0 and 1 send to GPU 4: its NIC takes two flows (25 GB/s each), theirs one each
        List<FlowClass> into4 = find(t, List.of(new Flow(0, 4, 1_000_000), new Flow(1, 4, 1_000_000)));
        assertEquals(1, into4.size());
        FlowClass c = into4.get(0);
        assertEquals(NIC / 1e9 / 2, c.rate, 1e-12);
        int spare = 0;
        for (boolean binding : c.binding) {
            spare += binding ? 0 : 1;
        }
        // GPU 0's and GPU 1's links to their NICs and on to the switch carry one flow each
        assertEquals(4, spare);
        // 0 -> 4 and 1 -> 5 share no link, but each is alone on its links at 50 GB/s: one class
        // whose every link binds; with a second, larger 0 -> 4 beside them, the 1 MB 0 -> 4 is
        // offered 25 GB/s and 1 -> 5 50, and the 2 MB flow differs in size: no two are alike. The
        // two 0 -> 4 flows cross every link together, so neither binds one and neither is a class
        // of one; 1 -> 5, alone on its links, is
        assertEquals(1, find(t, List.of(new Flow(0, 4, 1_000_000), new Flow(1, 5, 1_000_000))).size());
        List<FlowClass> lone = find(t, List.of(new Flow(0, 4, 1_000_000), new Flow(0, 4, 2_000_000),
                new Flow(1, 5, 1_000_000)));
        assertEquals(1, lone.size());
        assertEquals(1, lone.get(0).flows.length);
        assertEquals(2, lone.get(0).index[0]);
        assertEquals(NIC / 1e9, lone.get(0).rate, 1e-12);
        assertFalse(FlowClass.shaped(List.of(new Flow(0, 0, 1_000_000), new Flow(0, 4, 1_000_000))));
    }

    /**
     * A phase of one flow (a pipeline send) is a class of one at its route's slowest link: the
     * links as slow as that bind, faster ones keep spare capacity.
     */
    @Test
    void aLoneFlowIsAClassOfOneBoundByItsSlowestLinks() {
        Topology t = twoServers();
        List<Flow> send = List.of(new Flow(0, 5, 4_000_000));
        assertTrue(FlowClass.shaped(send));
        List<FlowClass> classes = find(t, send);
        assertEquals(1, classes.size());
        FlowClass c = classes.get(0);
        double slowest = Double.MAX_VALUE;
        for (Link l : t.route(0, 5, 0).links()) {
            slowest = Math.min(slowest, l.bandwidthBytesPerS() / 1e9);
        }
        assertEquals(slowest, c.rate, 1e-12);
        assertEquals(4_000_000, c.bytes);
        int bound = 0;
        for (int j = 0; j < c.links.length; j++) {
            Link l = t.links().get(c.links[j]);
            assertEquals(l.bandwidthBytesPerS() / 1e9 == slowest, c.binding[j], l.name());
            assertEquals(1, c.counts[j]);
            bound += c.binding[j] ? 1 : 0;
        }
        assertTrue(bound > 0, "some link binds");
        assertFalse(FlowClass.shaped(List.of(new Flow(0, 5, 0))), "an empty send is no class");
    }
}
