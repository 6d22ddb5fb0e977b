package org.clustersim.core.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;

import org.junit.jupiter.api.Test;

/**
 * The engine runs a graph renumbered in {@link DepthOrder}, reading each stream's next task from
 * the finished task's row: the renumbered graph must be the same graph, the rows must follow the
 * queues, and the timeline must come back under the ids the builder gave.
 */
class TaskNumberingTest {
    /** Random tasks over 4 devices of 3 streams, some waiting for later tasks, the tail resequenced if asked. */
    private static TaskGraph randomGraph(long seed, boolean resequence) {
        return randomGraph(seed, resequence, false);
    }

    /** As above, with tasks appended after the resequencing if {@code appendAfter}. */
    private static TaskGraph randomGraph(long seed, boolean resequence, boolean appendAfter) {
        SplittableRandom r = new SplittableRandom(seed);
        TaskGraph.Builder b = TaskGraph.builder();
        int[] streams = new int[12];
        for (int d = 0; d < 4; d++) {
            b.device("gpu" + d, d / 2);
            for (int k = 0; k < 3; k++) {
                streams[d * 3 + k] = b.stream(d, "s" + k, k == 0 ? StreamKind.COMPUTE : StreamKind.COMMUNICATION);
            }
        }
        int n = 300;
        for (int t = 0; t < n; t++) {
            int[] deps = t == 0 ? new int[0] : r.ints(r.nextInt(3), 0, t).distinct().toArray();
            if (r.nextInt(3) == 0) {
                b.compute("c" + t, "x", streams[r.nextInt(4) * 3], 1 + r.nextInt(50), 1e9, deps);
            } else {
                int[] on = r.ints(1 + r.nextInt(4), 0, streams.length).distinct().map(i -> streams[i]).toArray();
                b.communicate("m" + t, "y", on, Work.Communication.pointToPoint(0, 1, 100), deps);
            }
        }
        for (int k = 0; k < 20; k++) {
            int task = r.nextInt(n - 1);
            b.addDependency(task, task + 1 + r.nextInt(n - task - 1));
        }
        if (resequence) {
            int first = n - 60;
            List<Integer> tail = new ArrayList<>();
            for (int t = first; t < n; t++) {
                tail.add(t);
            }
            java.util.Collections.shuffle(tail, new java.util.Random(seed));
            b.resequence(first, tail.stream().mapToInt(Integer::intValue).toArray());
        }
        if (appendAfter) {
            // tasks appended after a resequence follow the reordered queues' ends
            for (int t = 0; t < 20; t++) {
                b.communicate("after" + t, "y", r.ints(1 + r.nextInt(4), 0, streams.length).distinct()
                        .map(i -> streams[i]).toArray(), Work.Communication.pointToPoint(0, 1, 100));
            }
        }
        return b.build();
    }

    /** The task after {@code task} in the queue of {@code stream}, found by walking the queue. */
    private static int queuedAfter(TaskGraph g, int stream, int task) {
        for (int p = 0; p + 1 < g.streamLength(stream); p++) {
            if (g.streamTask(stream, p) == task) {
                return g.streamTask(stream, p + 1);
            }
        }
        return -1;
    }

    @Test
    void eachTaskNamesTheTaskQueuedAfterItOnEachOfItsStreams() {
        for (int variant = 0; variant < 3; variant++) {
            boolean resequence = variant > 0;
            for (long seed = 1; seed <= 5; seed++) {
                TaskGraph g = randomGraph(seed, resequence, variant == 2);
                int checked = 0;
                for (int t = 0; t < g.taskCount(); t++) {
                    for (int i = 0; i < g.streamCount(t); i++) {
                        assertEquals(queuedAfter(g, g.taskStream(t, i), t), g.nextOnStream(t, i),
                                "task " + t + ", stream " + g.taskStream(t, i) + ", resequenced " + resequence);
                        checked++;
                    }
                }
                assertTrue(checked > g.taskCount());
            }
        }
    }

    @Test
    void aRenumberedGraphIsTheSameGraphWithEveryListInItsOrder() {
        // odd seeds gather the arrays in parallel, as a graph of millions of tasks does
        for (long seed = 1; seed <= 6; seed++) {
            TaskGraph g = randomGraph(seed, seed % 2 == 0);
            int n = g.taskCount();
            int[] ids = new SplittableRandom(seed).ints(0, Integer.MAX_VALUE).distinct().limit(n).toArray();
            Integer[] byKey = new Integer[n];
            Arrays.setAll(byKey, i -> i);
            Arrays.sort(byKey, java.util.Comparator.comparingInt(i -> ids[i]));
            int[] order = Arrays.stream(byKey).mapToInt(Integer::intValue).toArray();
            int[] newId = new int[n];
            for (int i = 0; i < n; i++) {
                newId[order[i]] = i;
            }
            TaskGraph h = g.renumbered(order, seed % 2 == 1);
            for (int i = 0; i < n; i++) {
                int t = order[i];
                assertEquals(g.name(t), h.name(i));
                assertEquals(g.category(t), h.category(i));
                assertSame(g.tag(t), h.tag(i));
                assertSame(g.work(t), h.work(i));
                assertEquals(g.isCompute(t), h.isCompute(i));
                assertEquals(g.streamCount(t), h.streamCount(i));
                for (int k = 0; k < g.streamCount(t); k++) {
                    assertEquals(g.taskStream(t, k), h.taskStream(i, k));
                    int next = g.nextOnStream(t, k);
                    assertEquals(next < 0 ? -1 : newId[next], h.nextOnStream(i, k));
                }
                assertEquals(g.depCount(t), h.depCount(i));
                for (int k = 0; k < g.depCount(t); k++) {
                    assertEquals(newId[g.dep(t, k)], h.dep(i, k));
                }
                assertEquals(g.dependentCount(t), h.dependentCount(i));
                for (int k = 0; k < g.dependentCount(t); k++) {
                    assertEquals(newId[g.dependent(t, k)], h.dependent(i, k));
                }
            }
            for (int s = 0; s < g.streams().size(); s++) {
                assertEquals(g.streamLength(s), h.streamLength(s));
                for (int p = 0; p < g.streamLength(s); p++) {
                    assertEquals(newId[g.streamTask(s, p)], h.streamTask(s, p));
                }
            }
        }
    }

    @Test
    void depthOrderPutsTheCopiesOfAReplicatedTaskSideBySideAfterWhatTheyWaitFor() {
        int replicas = 6;
        TaskGraph.Builder b = TaskGraph.builder();
        int perReplica = 0;
        for (int rep = 0; rep < replicas; rep++) {
            SplittableRandom r = new SplittableRandom(11);  // every replica the same
            int first = b.taskCount();
            int[] streams = new int[4];
            for (int d = 0; d < 2; d++) {
                b.device("r" + rep + "gpu" + d, rep);
                streams[d * 2] = b.stream(rep * 2 + d, "compute", StreamKind.COMPUTE);
                streams[d * 2 + 1] = b.stream(rep * 2 + d, "comm", StreamKind.COMMUNICATION);
            }
            for (int t = 0; t < 80; t++) {
                int[] deps = t == 0 ? new int[0] : r.ints(r.nextInt(3), 0, t).distinct().map(x -> first + x).toArray();
                b.compute("t" + t, "x", streams[r.nextInt(4)], 10, 0, deps);
            }
            perReplica = b.taskCount() - first;
        }
        TaskGraph g = b.build();
        int[] order = DepthOrder.of(g);
        int[] position = new int[g.taskCount()];
        Arrays.fill(position, -1);
        for (int i = 0; i < order.length; i++) {
            assertEquals(-1, position[order[i]], "task " + order[i] + " listed twice");
            position[order[i]] = i;
        }
        // the builder put copies perReplica ids apart; here they are interleaved with the other
        // tasks of their depth only: evenly spaced, a few positions apart
        for (int local = 0; local < perReplica; local++) {
            int stride = position[perReplica + local] - position[local];
            assertTrue(stride > 0 && stride < perReplica / 4, "copies of task " + local + " are " + stride + " apart");
            for (int rep = 2; rep < replicas; rep++) {
                assertEquals(position[local] + rep * stride, position[rep * perReplica + local],
                        "copy " + rep + " of task " + local);
            }
        }
        for (int t = 0; t < g.taskCount(); t++) {
            for (int k = 0; k < g.depCount(t); k++) {
                assertTrue(position[g.dep(t, k)] < position[t], "task " + t + " after its dependency");
            }
            for (int k = 0; k < g.streamCount(t); k++) {
                int next = g.nextOnStream(t, k);
                assertTrue(next < 0 || position[t] < position[next], "task " + t + " before its stream successor");
            }
        }
    }

    @Test
    void theTimelineReportsEachTaskUnderTheIdTheBuilderGaveIt() {
        TaskGraph.Builder b = TwoGpus.devices();
        int c0 = b.stream(0, "compute", StreamKind.COMPUTE);
        int c1 = b.stream(1, "compute", StreamKind.COMPUTE);
        int m1 = b.stream(1, "comm", StreamKind.COMMUNICATION);
        int first = b.compute("first", "x", c0, 100, 0);
        int second = b.compute("second", "x", c0, 50, 0);
        int alone = b.compute("alone", "x", c1, 30, 0);
        int send = b.communicate("send", "p2p", new int[] {m1}, Work.Communication.pointToPoint(1, 0, 1000));
        TaskGraph g = b.build();
        int[] order = DepthOrder.of(g);
        assertTrue(!Arrays.equals(order, new int[] {0, 1, 2, 3}), "the run order differs from the builder's");
        Timeline t = InterferenceTest.run(g, task -> 0.5);
        assertEquals(0, t.start(first));
        assertEquals(100, t.end(first));
        assertEquals(100, t.start(second));
        assertEquals(150, t.end(second));
        assertEquals(0, t.start(alone));
        assertTrue(t.end(alone) > 30, "slowed by the send beside it");
        assertTrue(t.interferenceNs(alone) > 0);
        assertEquals(0, t.interferenceNs(first));
        assertEquals(0, t.interferenceNs(second));
        assertEquals(0, t.start(send));
    }

    @Test
    void resequencedTasksAreQueuedOnEachStreamInTheOrderGiven() {
        TaskGraph.Builder b = TaskGraph.builder();
        b.device("gpu0", 0);
        int compute = b.stream(0, "compute", StreamKind.COMPUTE);
        int comm = b.stream(0, "comm", StreamKind.COMMUNICATION);
        for (int t = 0; t < 50; t++) {
            b.compute("c" + t, "x", t % 3 == 0 ? comm : compute, 1 + t, 1e9, new int[0]);
        }
        int first = 10;
        int[] order = new int[40];
        for (int i = 0; i < order.length; i++) {
            order[i] = first + (i * 17) % 40;
        }
        b.resequence(first, order);
        TaskGraph g = b.build();
        for (int stream : new int[] {compute, comm}) {
            List<Integer> queued = new ArrayList<>();
            for (int p = 0; p < g.streamLength(stream); p++) {
                queued.add(g.streamTask(stream, p));
            }
            List<Integer> expected = new ArrayList<>();
            for (int t = 0; t < first; t++) {
                if ((t % 3 == 0) == (stream == comm)) {
                    expected.add(t);
                }
            }
            for (int t : order) {
                if ((t % 3 == 0) == (stream == comm)) {
                    expected.add(t);
                }
            }
            assertEquals(expected, queued, "stream " + stream);
        }
    }

    /** A random permutation of {@code n} task ids. */
    private static int[] shuffled(int n, long seed) {
        List<Integer> ids = new ArrayList<>();
        for (int t = 0; t < n; t++) {
            ids.add(t);
        }
        java.util.Collections.shuffle(ids, new java.util.Random(seed));
        return ids.stream().mapToInt(Integer::intValue).toArray();
    }

    @Test
    void theDepthNumberingsInverseNumbersEachTaskWhereTheOrderPutsIt() {
        for (long seed = 1; seed <= 4; seed++) {
            TaskGraph g = randomGraph(seed, seed % 2 == 0);
            DepthOrder.Numbering numbering = DepthOrder.numbering(g);
            assertTrue(Arrays.equals(DepthOrder.of(g), numbering.order()));
            for (int i = 0; i < g.taskCount(); i++) {
                assertEquals(i, numbering.newId()[numbering.order()[i]]);
            }
        }
    }

    @Test
    void aGraphRenumberedTwiceOrJoinedWithAnotherKeepsEveryDependency() {
        for (long seed = 1; seed <= 4; seed++) {
            TaskGraph g = randomGraph(seed, true);
            int n = g.taskCount();
            DepthOrder.Numbering depth = DepthOrder.numbering(g);
            TaskGraph once = g.renumbered(depth.order(), depth.newId());
            int[] again = shuffled(n, seed);
            TaskGraph twice = once.renumbered(again, seed % 2 == 0);
            int[] newId = new int[n];
            for (int i = 0; i < n; i++) {
                newId[depth.order()[again[i]]] = i;
            }
            // the union of a renumbered graph and a plain one: the second part's ids follow the first's
            int[] identity = java.util.stream.IntStream.range(0, g.devices().size()).toArray();
            List<DeviceInfo> devices = new ArrayList<>(g.devices());
            int[] shifted = new int[identity.length];
            for (int d = 0; d < identity.length; d++) {
                shifted[d] = devices.size();
                devices.add(new DeviceInfo(devices.size(), "other" + d, 10 + d));
            }
            TaskGraph joined = TaskGraph.union(devices, List.of(twice, g), List.of(identity, shifted));
            for (int t = 0; t < n; t++) {
                int i = newId[t];
                assertEquals(g.depCount(t), twice.depCount(i));
                assertEquals(g.depCount(t), joined.depCount(i));
                assertEquals(g.depCount(t), joined.depCount(n + t));
                for (int k = 0; k < g.depCount(t); k++) {
                    assertEquals(newId[g.dep(t, k)], twice.dep(i, k), "seed " + seed + " task " + t);
                    assertEquals(newId[g.dep(t, k)], joined.dep(i, k));
                    assertEquals(n + g.dep(t, k), joined.dep(n + t, k));
                }
                assertEquals(g.dependentCount(t), twice.dependentCount(i));
                for (int k = 0; k < g.dependentCount(t); k++) {
                    assertEquals(newId[g.dependent(t, k)], twice.dependent(i, k));
                }
            }
        }
    }
}
