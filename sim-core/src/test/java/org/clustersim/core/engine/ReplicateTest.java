package org.clustersim.core.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.SplittableRandom;

import org.junit.jupiter.api.Test;

/**
 * {@link TaskGraph.Builder#replicate} appends what adding the same tasks on the mapped streams
 * would, resequenced queues included, and refuses a range or map it cannot copy before it
 * changes anything.
 */
class ReplicateTest {
    /** Random tasks on a compute and a communication stream of device {@code dev}, the last two resequenced. */
    private static void tasks(TaskGraph.Builder b, int dev, long seed) {
        SplittableRandom r = new SplittableRandom(seed);
        int first = b.taskCount();
        int c = b.stream(dev, "c", StreamKind.COMPUTE);
        int m = b.stream(dev, "m", StreamKind.COMMUNICATION);
        for (int t = 0; t < 40; t++) {
            int[] deps = t == 0 ? new int[0] : r.ints(r.nextInt(3), first, first + t).distinct().toArray();
            if (r.nextBoolean()) {
                b.compute("c" + t, TaskTag.of(TaskTag.Pass.FORWARD, r.nextInt(3), 0).atLayer(r.nextInt(4)), c,
                        1 + r.nextInt(9), 0, deps);
            } else {
                int[] on = r.nextBoolean() ? new int[] {m} : new int[] {m, c};
                TaskTag tag = r.nextBoolean() ? TaskTag.labelled("y")
                        : TaskTag.of(TaskTag.Pass.BACKWARD, r.nextInt(3), 0).carrying(TaskTag.Traffic.TENSOR);
                b.communicate("m" + t, tag, on, Work.Communication.pointToPoint(dev, dev, 8 + t), deps);
            }
        }
        // the last two tasks swapped in their queues (the builder does not run the graph)
        b.resequence(first + 38, new int[] {first + 39, first + 38});
    }

    private static TaskGraph.Builder devices() {
        return devices(2);
    }

    private static TaskGraph.Builder devices(int n) {
        TaskGraph.Builder b = TaskGraph.builder();
        for (int d = 0; d < n; d++) {
            b.device("gpu" + d, d);
        }
        return b;
    }

    /** Every task, stream and queue of two graphs alike. */
    private static void assertSameGraph(TaskGraph a, TaskGraph b, String what) {
        assertEquals(a.taskCount(), b.taskCount());
        for (int t = 0; t < a.taskCount(); t++) {
            assertEquals(a.name(t), b.name(t));
            assertEquals(a.tag(t), b.tag(t));
            assertEquals(a.work(t) instanceof Work.Compute ? ((Work.Compute) a.work(t)).durationNs() : a.work(t),
                    b.work(t) instanceof Work.Compute ? ((Work.Compute) b.work(t)).durationNs() : b.work(t));
            assertEquals(a.streamCount(t), b.streamCount(t));
            for (int i = 0; i < a.streamCount(t); i++) {
                assertEquals(a.taskStream(t, i), b.taskStream(t, i));
                assertEquals(a.nextOnStream(t, i), b.nextOnStream(t, i), "task " + t + " " + what);
            }
            assertEquals(a.depCount(t), b.depCount(t));
            for (int i = 0; i < a.depCount(t); i++) {
                assertEquals(a.dep(t, i), b.dep(t, i));
            }
        }
        for (int s = 0; s < a.streams().size(); s++) {
            assertEquals(a.streamLength(s), b.streamLength(s));
            for (int p = 0; p < a.streamLength(s); p++) {
                assertEquals(a.streamTask(s, p), b.streamTask(s, p), "stream " + s + " " + what);
            }
        }
    }

    @Test
    void aCopyIsWhatBuildingTheSameTasksOnTheOtherDeviceMakes() {
        for (long seed = 1; seed <= 6; seed++) {
            TaskGraph.Builder built = devices();
            tasks(built, 0, seed);
            tasks(built, 1, seed);
            TaskGraph.Builder copied = devices();
            tasks(copied, 0, seed);
            int end = copied.taskCount();
            int c1 = copied.stream(1, "c", StreamKind.COMPUTE);
            int m1 = copied.stream(1, "m", StreamKind.COMMUNICATION);
            int[] map = {c1, m1, -1, -1};
            int offset = copied.replicate(0, end, map, w -> ((Work.Communication) w).onDevices(d -> 1 - d));
            assertEquals(end, offset);
            assertSameGraph(built.build(), copied.build(), "seed " + seed);
        }
    }

    @Test
    void manyCopiesWithRoomReservedAreWhatBuildingMakes() {
        for (long seed = 7; seed <= 10; seed++) {
            TaskGraph.Builder built = devices(4);
            TaskGraph.Builder copied = devices(4);
            for (int d = 0; d < 4; d++) {
                tasks(built, d, seed);
            }
            tasks(copied, 0, seed);
            int end = copied.taskCount();
            copied.reserveCopies(0, end, 3);
            for (int d = 1; d < 4; d++) {
                int dev = d;
                int[] map = {copied.stream(d, "c", StreamKind.COMPUTE), copied.stream(d, "m", StreamKind.COMMUNICATION)};
                map = java.util.Arrays.copyOf(map, copied.streamCount());
                java.util.Arrays.fill(map, 2, map.length, -1);
                assertEquals(d * end, copied.replicate(0, end, map,
                        w -> ((Work.Communication) w).onDevices(x -> x == 0 ? dev : -1)));
            }
            // tasks added after the reserved room still land in order
            for (TaskGraph.Builder b : java.util.List.of(built, copied)) {
                b.compute("after", "x", b.stream(3, "c", StreamKind.COMPUTE), 5, 0, end - 1, 2 * end + 1);
            }
            assertSameGraph(built.build(), copied.build(), "seed " + seed);
        }
    }

    @Test
    void aRangeOrMapThatCannotBeCopiedIsRefusedBeforeAnythingChanges() {
        TaskGraph.Builder b = devices();
        tasks(b, 0, 3);
        int end = b.taskCount();
        int c1 = b.stream(1, "c", StreamKind.COMPUTE);
        int m1 = b.stream(1, "m", StreamKind.COMMUNICATION);
        java.util.function.UnaryOperator<Work> same = w -> w;
        assertThrows(IllegalArgumentException.class, () -> b.replicate(0, end, new int[] {c1, c1, -1, -1}, same),
                "two streams onto one");
        assertThrows(IllegalArgumentException.class, () -> b.replicate(0, end, new int[] {1, m1, -1, -1}, same),
                "onto a stream of the range");
        assertThrows(IllegalArgumentException.class, () -> b.replicate(0, end, new int[] {c1, -1, -1, -1}, same),
                "a stream unmapped");
        b.addDependency(5, 0);
        assertThrows(IllegalArgumentException.class, () -> b.replicate(1, end, new int[] {c1, m1, -1, -1}, same),
                "a dependency outside the range");
        assertEquals(end, b.taskCount(), "nothing appended");
    }

    @Test
    void aDependencyAddedToACopiedRangeStopsTheNextCopy() {
        TaskGraph.Builder b = devices(3);
        tasks(b, 0, 4);
        int end = b.taskCount();
        java.util.function.UnaryOperator<Work> same = w -> w;
        int[] map = new int[4];
        java.util.Arrays.fill(map, -1);
        map[0] = b.stream(1, "c", StreamKind.COMPUTE);
        map[1] = b.stream(1, "m", StreamKind.COMMUNICATION);
        b.replicate(0, end, map, same);
        b.addDependency(5, end + 3);
        int[] next = new int[6];
        java.util.Arrays.fill(next, -1);
        next[0] = b.stream(2, "c", StreamKind.COMPUTE);
        next[1] = b.stream(2, "m", StreamKind.COMMUNICATION);
        int count = b.taskCount();
        assertThrows(IllegalArgumentException.class, () -> b.replicate(0, end, next, same),
                "task 5 now waits for a copy");
        assertThrows(IllegalArgumentException.class, () -> b.reserveCopies(0, end, 1));
        assertEquals(count, b.taskCount(), "nothing appended");
    }

    /** Device d's compute and communication streams as the map of device 0's ({@link #tasks} declares c then m). */
    private static int[] mapOnto(TaskGraph.Builder b, int d) {
        int c = b.stream(d, "c", StreamKind.COMPUTE);
        int m = b.stream(d, "m", StreamKind.COMMUNICATION);
        int[] map = new int[b.streamCount()];
        java.util.Arrays.fill(map, -1);
        map[b.stream(0, "c", StreamKind.COMPUTE)] = c;
        map[b.stream(0, "m", StreamKind.COMMUNICATION)] = m;
        return map;
    }

    private static java.util.function.UnaryOperator<Work> onto(int dev) {
        return w -> ((Work.Communication) w).onDevices(x -> x == 0 ? dev : -1);
    }

    @Test
    void copiesMadeInOneCallSideBySideAreWhatBuildingMakes() {
        for (boolean parallel : new boolean[] {false, true}) {
            for (long seed = 11; seed <= 14; seed++) {
                TaskGraph.Builder built = devices(5);
                TaskGraph.Builder copied = devices(5);
                // the targets' compute streams already hold a task each (a later step's copies)
                for (TaskGraph.Builder b : java.util.List.of(built, copied)) {
                    for (int d = 1; d < 5; d++) {
                        b.compute("before" + d, "x", b.stream(d, "c", StreamKind.COMPUTE), 3, 0);
                    }
                }
                int first = built.taskCount();
                for (int d = 0; d < 5; d++) {
                    tasks(built, d, seed);
                }
                tasks(copied, 0, seed);
                int end = copied.taskCount();
                java.util.List<int[]> maps = new java.util.ArrayList<>();
                java.util.List<java.util.function.UnaryOperator<Work>> works = new java.util.ArrayList<>();
                for (int d = 1; d < 5; d++) {
                    maps.add(mapOnto(copied, d));
                    works.add(onto(d));
                }
                int[] offsets = copied.replicate(first, end, maps, works, parallel);
                int count = end - first;
                assertEquals(java.util.List.of(count, 2 * count, 3 * count, 4 * count),
                        java.util.Arrays.stream(offsets).boxed().toList());
                for (TaskGraph.Builder b : java.util.List.of(built, copied)) {
                    b.compute("after", "x", b.stream(4, "c", StreamKind.COMPUTE), 5, 0, end - 1, end + 3 * count + 1);
                }
                assertSameGraph(built.build(), copied.build(), "seed " + seed + (parallel ? " in parallel" : ""));
            }
        }
    }

    @Test
    void copiesOntoOneStreamInOneCallQueueInTurnAsSingleCopiesDo() {
        TaskGraph.Builder single = devices(2);
        TaskGraph.Builder batch = devices(2);
        tasks(single, 0, 15);
        tasks(batch, 0, 15);
        int end = single.taskCount();
        for (int k = 0; k < 2; k++) {
            single.replicate(0, end, mapOnto(single, 1), onto(1));
        }
        int[] offsets = batch.replicate(0, end, java.util.List.of(mapOnto(batch, 1), mapOnto(batch, 1)),
                java.util.List.of(onto(1), onto(1)), true);
        assertEquals(java.util.List.of(end, 2 * end), java.util.Arrays.stream(offsets).boxed().toList());
        assertSameGraph(single.build(), batch.build(), "two copies onto device 1");
    }

    @Test
    void aBadMapAmongManyIsRefusedBeforeAnyCopy() {
        TaskGraph.Builder b = devices(3);
        tasks(b, 0, 16);
        int end = b.taskCount();
        int[] good = mapOnto(b, 1);
        int[] bad = mapOnto(b, 2);
        bad[b.stream(0, "m", StreamKind.COMMUNICATION)] = bad[b.stream(0, "c", StreamKind.COMPUTE)];
        assertThrows(IllegalArgumentException.class, () -> b.replicate(0, end, java.util.List.of(good, bad),
                java.util.List.of(onto(1), onto(2)), true), "the second copy maps two streams onto one");
        assertEquals(end, b.taskCount(), "nothing appended");
    }
}
