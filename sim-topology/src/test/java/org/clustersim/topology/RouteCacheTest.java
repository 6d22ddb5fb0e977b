package org.clustersim.topology;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

import org.junit.jupiter.api.Test;

class RouteCacheTest {
    @Test
    void agreesWithAHashMapThroughGrowthReplacementAndClearing() {
        RouteCache cache = new RouteCache();
        Map<Long, Route> reference = new HashMap<>();
        Random random = new Random(7);
        for (int i = 0; i < 50_000; i++) {
            // the router's packing: channel on top, source, destination below
            long key = ((long) random.nextInt(4) << 48) | ((long) random.nextInt(16_384) << 24) | random.nextInt(16_384);
            Route r = new Route(List.of());
            cache.put(key, r);
            reference.put(key, r);
        }
        assertEquals(reference.size(), cache.size());
        for (Map.Entry<Long, Route> e : reference.entrySet()) {
            assertSame(e.getValue(), cache.get(e.getKey()));
        }
        assertNull(cache.get(-1L));
        cache.clear();
        assertEquals(0, cache.size());
        for (long key : reference.keySet()) {
            assertNull(cache.get(key));
        }
    }
}
