package org.clustersim.core.network;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import java.util.TreeSet;

import org.junit.jupiter.api.Test;

/**
 * The bucketed finish queue against a sorted set of (finish time, id): random moves between few
 * and many distinct times (ties in the thousands, as an all-to-all's flows have), entries leaving
 * and rejoining, and takes in between must give the same entries in the same order.
 */
class FinishQueueTest {
    private static final class Item extends FinishQueue.Entry {
        Item(long id) {
            super(id);
        }
    }

    private static final Comparator<Item> ORDER = Comparator.<Item>comparingLong(i -> i.finishAt).thenComparingLong(i -> i.id);

    @Test
    void takesWhatASortedSetWouldInTheSameOrder() {
        for (int seed = 0; seed < 40; seed++) {
            Random rnd = new Random(seed);
            int times = seed % 4 == 0 ? 3 : seed % 4 == 1 ? 40 : seed % 4 == 2 ? 1_000 : 100_000;
            FinishQueue<Item> queue = new FinishQueue<>();
            TreeSet<Item> reference = new TreeSet<>(ORDER);
            List<Item> items = new ArrayList<>();
            for (int i = 0; i < 300; i++) {
                // ids are not handed out in the order entries join
                items.add(new Item(rnd.nextInt(1_000_000) * 300L + i));
            }
            long now = 0;
            int taken = 0;
            for (int step = 0; step < 20_000; step++) {
                Item it = items.get(rnd.nextInt(items.size()));
                int op = rnd.nextInt(10);
                if (op < 7) {
                    reference.remove(it);
                    it.finishAt = rnd.nextInt(20) == 0 ? Long.MAX_VALUE : now + 1 + rnd.nextInt(times);
                    queue.update(it);
                    if (it.finishAt != Long.MAX_VALUE) {
                        reference.add(it);
                    }
                } else if (op < 8) {
                    // an update to the time it already has changes nothing
                    queue.update(it);
                } else {
                    assertEquals(reference.isEmpty() ? Long.MAX_VALUE : reference.first().finishAt, queue.firstTime(),
                            "seed " + seed + " step " + step);
                    if (reference.isEmpty()) {
                        continue;
                    }
                    now = queue.firstTime();
                    int n = queue.takeFirst();
                    for (int i = 0; i < n; i++) {
                        Item expected = reference.pollFirst();
                        assertTrue(expected == queue.due(i), "seed " + seed + " step " + step + " entry " + i);
                        assertEquals(now, expected.finishAt);
                        // taken entries are out of the queue: they may rejoin later
                        expected.finishAt = Long.MAX_VALUE;
                        taken++;
                    }
                    assertTrue(reference.isEmpty() || reference.first().finishAt > now,
                            "seed " + seed + ": every entry due then was taken");
                }
            }
            assertTrue(taken > 1_000, "seed " + seed + " took " + taken);
        }
    }

    @Test
    void thousandsDueTogetherComeOutInIdOrder() {
        // an all-to-all's flows: far more simultaneous finishes than one sorted run, joining out of order
        for (int n : new int[] {31, 33, 64, 65, 1_000, 4_097}) {
            Random rnd = new Random(n);
            FinishQueue<Item> queue = new FinishQueue<>();
            List<Item> items = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                items.add(new Item(i * 7L));
            }
            java.util.Collections.shuffle(items, rnd);
            for (Item it : items) {
                it.finishAt = 500;
                queue.update(it);
            }
            // moving one away and back leaves a hole filled out of order
            items.get(0).finishAt = 900;
            queue.update(items.get(0));
            items.get(0).finishAt = 500;
            queue.update(items.get(0));
            assertEquals(n, queue.takeFirst(), "n " + n);
            for (int i = 0; i < n; i++) {
                assertEquals(i * 7L, queue.due(i).id, "n " + n + " entry " + i);
            }
            assertEquals(Long.MAX_VALUE, queue.firstTime(), "n " + n);
        }
    }
}
