package org.clustersim.strategies.training;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import org.junit.jupiter.api.Test;

class MeshTest {
    /** Every ordering of the four dimensions. */
    static List<List<Mesh.Dim>> orders() {
        List<List<Mesh.Dim>> out = new ArrayList<>();
        permute(new ArrayList<>(List.of(Mesh.Dim.values())), 0, out);
        return out;
    }

    private static void permute(List<Mesh.Dim> dims, int k, List<List<Mesh.Dim>> out) {
        if (k == dims.size()) {
            out.add(List.copyOf(dims));
            return;
        }
        for (int i = k; i < dims.size(); i++) {
            java.util.Collections.swap(dims, k, i);
            permute(dims, k + 1, out);
            java.util.Collections.swap(dims, k, i);
        }
    }

    @Test
    void everyOrderPlacesEachCoordinateOnItsOwnGpuAndBack() {
        assertEquals(24, orders().size());
        for (List<Mesh.Dim> order : orders()) {
            Mesh m = new Mesh(2, 3, 4, 5, 1, order);
            Set<Integer> seen = new HashSet<>();
            for (int t = 0; t < 2; t++) {
                for (int c = 0; c < 3; c++) {
                    for (int p = 0; p < 4; p++) {
                        for (int d = 0; d < 5; d++) {
                            int g = m.device(t, c, p, d);
                            assertTrue(g >= 0 && g < m.gpus() && seen.add(g), order + ": " + g);
                            assertEquals(new Mesh.Coordinates(t, c, p, d), m.coordinates(g));
                        }
                    }
                }
            }
        }
    }

    @Test
    void theInnermostDimensionTakesConsecutiveGpus() {
        Mesh standard = new Mesh(8, 2, 4, 16);
        assertEquals(1, standard.device(1, 0, 0, 0));
        assertEquals(8, standard.device(0, 1, 0, 0));
        assertEquals(16, standard.device(0, 0, 1, 0));
        assertEquals(64, standard.device(0, 0, 0, 1));
        Mesh dpFirst = new Mesh(8, 2, 4, 16, 1, Mesh.parseOrder("dp-tp-cp-pp"));
        assertEquals(1, dpFirst.device(0, 0, 0, 1));
        assertEquals(16, dpFirst.device(1, 0, 0, 0));
    }

    @Test
    void ordersAreParsedWithClearErrors() {
        assertEquals(List.of(Mesh.Dim.TP, Mesh.Dim.DP, Mesh.Dim.PP, Mesh.Dim.CP), Mesh.parseOrder("tp, dp, pp, cp"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> Mesh.parseOrder("tp-pp-dp")).getMessage()
                .contains("found 3 dimensions"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> Mesh.parseOrder("tp-tp-pp-dp")).getMessage()
                .contains("twice"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> Mesh.parseOrder("tp-ep-pp-dp")).getMessage()
                .contains("unknown mesh dimension 'ep'"));
        assertThrows(IllegalArgumentException.class, () -> new Mesh(1, 1, 1, 6, 4, Mesh.DEFAULT_ORDER));
    }
}
