package org.clustersim.core.network;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

import org.junit.jupiter.api.Test;

/**
 * The max-min solver on its own, against textbook water-filling written here without a heap
 * (every round scans every link for the least share, O(n^2)): hand-worked cases, random ones,
 * the bottleneck property (every flow has a saturated link on which no flow is faster), and the
 * property the flow model's incremental re-rating rests on: rating a part of the flows over the
 * capacity the others leave gives each of them its rate in the whole.
 */
class ProgressiveFillingTest {
    /** A problem: per link its capacity, per flow the links it crosses. */
    private record Problem(double[] capacity, int[][] flows) {
        int[] hopStart() {
            int[] start = new int[flows.length + 1];
            for (int f = 0; f < flows.length; f++) {
                start[f + 1] = start[f] + flows[f].length;
            }
            return start;
        }

        int[] hopLink() {
            return Arrays.stream(flows).flatMapToInt(Arrays::stream).toArray();
        }
    }

    private static double[] solve(MaxMinSolver solver, Problem p) {
        double[] rates = solver.solve(p.capacity.length, p.capacity.clone(), p.flows.length, p.hopStart(), p.hopLink());
        return Arrays.copyOf(rates, p.flows.length);
    }

    /** Textbook water-filling: raise every unfrozen flow together until a link fills, freeze its flows, repeat. */
    private static double[] waterFilling(Problem p) {
        int nf = p.flows.length;
        double[] left = p.capacity.clone();
        double[] rate = new double[nf];
        boolean[] frozen = new boolean[nf];
        int remaining = nf;
        while (remaining > 0) {
            int worst = -1;
            double least = Double.MAX_VALUE;
            for (int l = 0; l < left.length; l++) {
                int n = 0;
                for (int f = 0; f < nf; f++) {
                    if (!frozen[f] && crosses(p.flows[f], l)) {
                        n++;
                    }
                }
                if (n > 0 && Math.max(0, left[l]) / n < least) {
                    least = Math.max(0, left[l]) / n;
                    worst = l;
                }
            }
            if (worst < 0) {
                // the flows left cross no link: nothing limits them, and nothing rates them
                break;
            }
            for (int f = 0; f < nf; f++) {
                if (!frozen[f] && crosses(p.flows[f], worst)) {
                    frozen[f] = true;
                    remaining--;
                    rate[f] = least;
                    for (int l : p.flows[f]) {
                        left[l] -= least;
                    }
                }
            }
        }
        return rate;
    }

    private static boolean crosses(int[] links, int l) {
        for (int x : links) {
            if (x == l) {
                return true;
            }
        }
        return false;
    }

    private static Problem random(Random rnd, int links, int flows) {
        double[] capacity = new double[links];
        for (int l = 0; l < links; l++) {
            // a few equal capacities, as a fabric's links have, and some distinct ones
            capacity[l] = rnd.nextBoolean() ? 50 : 1 + rnd.nextInt(100) * 0.37;
        }
        int[][] routes = new int[flows][];
        for (int f = 0; f < flows; f++) {
            List<Integer> route = new ArrayList<>();
            for (int l = 0; l < links; l++) {
                if (rnd.nextInt(links) < 2) {
                    route.add(l);
                }
            }
            if (route.isEmpty()) {
                route.add(rnd.nextInt(links));
            }
            java.util.Collections.shuffle(route, rnd);
            routes[f] = route.stream().mapToInt(Integer::intValue).toArray();
        }
        return new Problem(capacity, routes);
    }

    private static void assertClose(double[] expected, double[] actual, double scale, String what) {
        assertEquals(expected.length, actual.length, what);
        for (int i = 0; i < expected.length; i++) {
            assertEquals(expected[i], actual[i], 1e-9 * scale, what + ", flow " + i);
        }
    }

    @Test
    void aFlowHeldBackElsewhereLeavesItsShareToTheOthers() {
        // link 0 (1) carries flows 0 and 1, link 1 (2) carries flows 0 and 2: link 0 is the
        // bottleneck of flows 0 and 1 at 1/2, flow 2 takes what flow 0 leaves on link 1
        Problem p = new Problem(new double[] {1, 2}, new int[][] {{0, 1}, {0}, {1}});
        assertArrayEquals(new double[] {0.5, 0.5, 1.5}, solve(new ProgressiveFilling(), p));
    }

    @Test
    void theClassicParkingLotGivesTheLongFlowTheLeastOfItsLinks() {
        // three links in a row of capacity 1, 2, 3; a long flow across all, one short flow on
        // each: link 0 freezes the long flow and its short flow at 1/2, link 1 gives its short
        // flow 2 - 1/2, link 2 gives its short flow 3 - 1/2
        Problem p = new Problem(new double[] {1, 2, 3}, new int[][] {{0, 1, 2}, {0}, {1}, {2}});
        assertArrayEquals(new double[] {0.5, 0.5, 1.5, 2.5}, solve(new ProgressiveFilling(), p));
    }

    @Test
    void aLinkWithNoCapacityStopsItsFlowsAndOnlyThem() {
        Problem p = new Problem(new double[] {0, 4}, new int[][] {{0, 1}, {1}, {1}});
        assertArrayEquals(new double[] {0, 2, 2}, solve(new ProgressiveFilling(), p));
    }

    @Test
    void equalsWaterFillingOnRandomProblems() {
        MaxMinSolver solver = new ProgressiveFilling();
        for (int seed = 0; seed < 300; seed++) {
            Random rnd = new Random(seed);
            // sizes vary from call to call: the solver's reused arrays must not leak a rating into the next
            Problem p = random(rnd, 1 + rnd.nextInt(seed % 3 == 0 ? 40 : 8), 1 + rnd.nextInt(seed % 3 == 0 ? 60 : 10));
            assertClose(waterFilling(p), solve(solver, p), 100, "seed " + seed);
        }
    }

    @Test
    void everyFlowHasASaturatedLinkOnWhichNoFlowIsFaster() {
        MaxMinSolver solver = new ProgressiveFilling();
        for (int seed = 0; seed < 200; seed++) {
            Random rnd = new Random(1000 + seed);
            Problem p = random(rnd, 1 + rnd.nextInt(20), 1 + rnd.nextInt(30));
            double[] rate = solve(solver, p);
            int nl = p.capacity.length;
            double[] load = new double[nl];
            for (int f = 0; f < p.flows.length; f++) {
                for (int l : p.flows[f]) {
                    load[l] += rate[f];
                }
            }
            for (int l = 0; l < nl; l++) {
                assertTrue(load[l] <= p.capacity[l] * (1 + 1e-12), "seed " + seed + ": link " + l + " over capacity");
                assertEquals(p.capacity[l] - load[l], solver.leftover(l), 1e-9 * p.capacity[l],
                        "seed " + seed + ": leftover of link " + l);
            }
            for (int f = 0; f < p.flows.length; f++) {
                boolean bottleneck = false;
                for (int l : p.flows[f]) {
                    boolean saturated = load[l] >= p.capacity[l] * (1 - 1e-9);
                    boolean fastest = true;
                    for (int g = 0; g < p.flows.length; g++) {
                        fastest &= !crosses(p.flows[g], l) || rate[g] <= rate[f] * (1 + 1e-9);
                    }
                    bottleneck |= saturated && fastest;
                }
                assertTrue(bottleneck, "seed " + seed + ": flow " + f + " has no bottleneck");
            }
        }
    }

    @Test
    void ratingAPartOverWhatTheOthersLeaveGivesItsRatesInTheWhole() {
        MaxMinSolver solver = new ProgressiveFilling();
        for (int seed = 0; seed < 200; seed++) {
            Random rnd = new Random(5000 + seed);
            Problem whole = random(rnd, 2 + rnd.nextInt(15), 2 + rnd.nextInt(25));
            double[] rate = solve(solver, whole);
            // a part of the flows, re-indexed over the links it crosses
            int nf = whole.flows.length;
            boolean[] inPart = new boolean[nf];
            for (int f = 0; f < nf; f++) {
                inPart[f] = rnd.nextInt(3) > 0;
            }
            inPart[rnd.nextInt(nf)] = true;
            int[] local = new int[whole.capacity.length];
            Arrays.fill(local, -1);
            List<Double> offered = new ArrayList<>();
            List<int[]> partFlows = new ArrayList<>();
            List<Double> expected = new ArrayList<>();
            for (int f = 0; f < nf; f++) {
                if (!inPart[f]) {
                    continue;
                }
                int[] links = new int[whole.flows[f].length];
                for (int h = 0; h < links.length; h++) {
                    int l = whole.flows[f][h];
                    if (local[l] < 0) {
                        local[l] = offered.size();
                        double othersUse = 0;
                        for (int g = 0; g < nf; g++) {
                            if (!inPart[g] && crosses(whole.flows[g], l)) {
                                othersUse += rate[g];
                            }
                        }
                        offered.add(Math.max(0, whole.capacity[l] - othersUse));
                    }
                    links[h] = local[l];
                }
                partFlows.add(links);
                expected.add(rate[f]);
            }
            Problem part = new Problem(offered.stream().mapToDouble(Double::doubleValue).toArray(),
                    partFlows.toArray(new int[0][]));
            assertClose(expected.stream().mapToDouble(Double::doubleValue).toArray(), solve(solver, part), 100,
                    "seed " + seed);
        }
    }
}
