package org.clustersim.core.engine;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;

import org.junit.jupiter.api.Test;

class CountersTest {
    @Test
    void discardingTracksEmptiesThemAndLeavesTheOthersAsTheyWere() {
        Counters c = new Counters();
        int link = c.track("link a->b", "GB/s");
        int mem = c.track("memory gpu0", "GB");
        c.add(mem, 0, 10);
        c.add(link, 5, 3);
        c.add(mem, 20, 2);
        c.add(link, 30, -3);
        c.add(mem, 20, -1);
        c.discard(name -> name.startsWith("link "));
        List<Counters.Series> all = c.allSeries();
        assertEquals(2, all.size(), "the tracks stay");
        assertEquals(0, all.get(link).timesNs().length, "no samples left on the link track");
        assertArrayEquals(new long[] {0, 20}, all.get(mem).timesNs());
        assertArrayEquals(new double[] {10, 11}, all.get(mem).values());
    }

    @Test
    void aTrackNamedLaterIsNamedOnceWhenReadAndFoundByThatName() {
        Counters c = new Counters();
        int[] made = {0};
        int link = c.trackNamedLater(() -> {
            made[0]++;
            return "link a->b";
        }, "GB/s");
        c.add(link, 5, 3);
        assertEquals(0, made[0], "not named before it is read");
        // a track asked for by that name afterwards is the same track, not a second one
        assertEquals(link, c.track("link a->b", "GB/s"));
        assertEquals(1, c.trackCount());
        assertEquals("link a->b", c.name(link));
        assertEquals("GB/s", c.unit(link));
        c.discard(name -> name.startsWith("link "));
        assertEquals(1, made[0], "named once");
        assertEquals(0, c.allSeries().get(link).timesNs().length);
    }
}
