package org.clustersim.strategies.training;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import org.clustersim.strategies.collective.CollectiveOp;
import org.clustersim.strategies.collective.Collectives;
import org.clustersim.strategies.collective.CommGroup;
import org.clustersim.topology.SuperPodSpec;
import org.clustersim.topology.Topology;

/**
 * A route shape is what lets a plan share an action's timing between GPU lists: lists of one
 * shape must get the same collective estimates position by position, and lists that sit alike
 * (one server each, or the same rails of servers whose routes collide alike) must share one.
 */
class RouteShapeTest {
    private static final Topology POD = SuperPodSpec.h100(2).build();
    private static final List<CollectiveOp> OPS = List.of(CollectiveOp.ALL_REDUCE, CollectiveOp.ALL_GATHER,
            CollectiveOp.REDUCE_SCATTER, CollectiveOp.ALL_TO_ALL);

    @Test
    void listsOfOneShapeGetTheSameEstimatesAndCollidingRoutesTellShapesApart() {
        // 16 GPUs as a tp 4 x cp 4 rank: 4 on each of 4 servers at many servers and rails (static
        // ECMP gives nearly each its own shape)
        List<int[]> lists = new ArrayList<>();
        for (int first = 0; first < 60; first += 7) {
            for (int gap : new int[] {1, 17}) {
                for (int rail : new int[] {0, 4}) {
                    int[] devices = new int[16];
                    for (int c = 0; c < 4; c++) {
                        int server = (first + c * gap) % 64;
                        for (int t = 0; t < 4; t++) {
                            devices[c * 4 + t] = server * 8 + rail + t;
                        }
                    }
                    lists.add(devices);
                }
            }
        }
        for (int server = 0; server < 64; server += 9) {
            for (int[] order : new int[][] {{0, 1, 2, 3, 4, 5, 6, 7}, {1, 0, 3, 2, 5, 4, 7, 6}}) {
                // a tp 4 x cp 2 rank filling one server, in two local orders
                int[] devices = new int[8];
                for (int i = 0; i < 8; i++) {
                    devices[i] = server * 8 + order[i];
                }
                lists.add(devices);
            }
        }
        Map<RouteShape, List<int[]>> byShape = new HashMap<>();
        for (int[] devices : lists) {
            byShape.computeIfAbsent(RouteShape.of(POD, devices), k -> new ArrayList<>()).add(devices);
        }
        int shared = 0;
        for (List<int[]> same : byShape.values()) {
            int[] a = same.get(0);
            for (int[] b : same.subList(1, same.size())) {
                shared++;
                for (int[] positions : groups(a.length / 4)) {
                    for (CollectiveOp op : OPS) {
                        for (long bytes : new long[] {1 << 20, 64L << 20}) {
                            assertEquals(estimate(op, pick(a, positions), bytes), estimate(op, pick(b, positions), bytes),
                                    op + " over positions " + java.util.Arrays.toString(positions));
                        }
                    }
                }
            }
        }
        assertTrue(shared > 0, "no two lists shared a shape");
        assertTrue(byShape.size() > 4, "the lists had " + byShape.size() + " shapes");
    }

    @Test
    void aServersGpusHaveOneShapeWhicheverServerAndNotAnotherServersCount() {
        RouteShape first = RouteShape.of(POD, new int[] {0, 1, 2, 3, 4, 5, 6, 7});
        assertEquals(first, RouteShape.of(POD, new int[] {400, 401, 402, 403, 404, 405, 406, 407}));
        assertNotEquals(first, RouteShape.of(POD, new int[] {0, 1, 2, 3, 8, 9, 10, 11}));
        // the order of the GPUs is part of the shape: a collective's ranks follow it
        assertNotEquals(RouteShape.of(POD, new int[] {0, 8, 1, 9}), RouteShape.of(POD, new int[] {0, 1, 8, 9}));
    }

    /** A tp 4 x cp {@code cp} rank's TP groups (4 consecutive positions), CP groups (every 4th) and the whole rank. */
    private static List<int[]> groups(int cp) {
        List<int[]> out = new ArrayList<>();
        for (int c = 0; c < cp; c++) {
            out.add(new int[] {c * 4, c * 4 + 1, c * 4 + 2, c * 4 + 3});
        }
        for (int t = 0; t < 4; t++) {
            int[] group = new int[cp];
            for (int c = 0; c < cp; c++) {
                group[c] = t + 4 * c;
            }
            out.add(group);
        }
        int[] all = new int[4 * cp];
        for (int i = 0; i < all.length; i++) {
            all[i] = i;
        }
        out.add(all);
        return out;
    }

    private static int[] pick(int[] devices, int[] positions) {
        int[] out = new int[positions.length];
        for (int i = 0; i < positions.length; i++) {
            out[i] = devices[positions[i]];
        }
        return out;
    }

    private static long estimate(CollectiveOp op, int[] devices, long bytes) {
        return Collectives.plan("auto", op, new CommGroup(devices), bytes, POD).estimateNs();
    }
}
