package org.clustersim.strategies.training;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;

import org.junit.jupiter.api.Test;

/** The expert mesh folded over each pipeline stage's GPUs, against groups worked out by hand. */
class ExpertMeshTest {
    static final List<Mesh.Dim> MEGATRON = Mesh.parseOrder("tp-cp-dp-pp");

    @Test
    void epThirtyTwoFoldsOverTpTwoTimesDpSixteen() {
        // the example: 32 GPUs per stage, attention TP 2 x DP 16, experts EP 32 x ETP 1 x EDP 1
        Mesh mesh = new Mesh(2, 1, 2, 16, 32, 1, MEGATRON);
        ExpertMesh e = mesh.experts();
        assertEquals(1, e.edp());
        int[] stage0 = new int[32];
        int[] stage1 = new int[32];
        for (int i = 0; i < 32; i++) {
            stage0[i] = i;
            stage1[i] = 32 + i;
        }
        assertArrayEquals(stage0, mesh.expertGroup(17));
        assertArrayEquals(stage1, mesh.expertGroup(40));
        assertArrayEquals(new int[] {5}, e.dataGroup(5), "one copy of each expert per stage: nothing to reduce");
        assertArrayEquals(new int[] {5}, e.tensorGroup(5));
    }

    @Test
    void smallFoldedMeshHasTheGroupsWorkedOutByHand() {
        // tp 2, dp 4, pp 2 in Megatron's order: GPU = t + 2 d + 8 p; a stage's number is t + 2 d
        Mesh mesh = new Mesh(2, 1, 2, 4, 4, 1, MEGATRON);
        ExpertMesh e = mesh.experts();
        assertEquals(2, e.edp());
        assertArrayEquals(new int[] {0, 1, 2, 3}, e.expertParallelGroup(0), "EP spans both TP ranks of two replicas");
        assertArrayEquals(new int[] {4, 5, 6, 7}, e.expertParallelGroup(5));
        assertArrayEquals(new int[] {8, 9, 10, 11}, e.expertParallelGroup(9));
        assertArrayEquals(new int[] {1, 5}, e.dataGroup(1), "the same experts one EP group further");
        assertArrayEquals(new int[] {11, 15}, e.dataGroup(15));
        assertEquals(new ExpertMesh.Coordinates(0, 1, 1, 0), e.coordinates(5));
        assertEquals(List.of("[0, 4]", "[1, 5]", "[2, 6]", "[3, 7]"),
                e.dataGroups(0).stream().map(java.util.Arrays::toString).toList());

        // the default order (DP outermost): GPU = t + 2 p + 4 d, stage 0 holds 0, 1, 4, 5, 8, 9, 12, 13
        Mesh outer = new Mesh(2, 1, 2, 4, 4, 1, Mesh.DEFAULT_ORDER);
        assertArrayEquals(new int[] {0, 1, 4, 5}, outer.experts().expertParallelGroup(0));
        assertArrayEquals(new int[] {0, 8}, outer.experts().dataGroup(0));
        assertArrayEquals(new int[] {2, 3, 6, 7}, outer.experts().expertParallelGroup(7), "stage 1");

        // expert TP 2 (= tp) and EP 2: ETP pairs are the TP pairs, EP pairs two replicas, EDP the other two
        Mesh etp2 = new Mesh(2, 1, 1, 4, 2, 2, MEGATRON);
        assertArrayEquals(new int[] {0, 1}, etp2.experts().tensorGroup(1));
        assertArrayEquals(new int[] {1, 3}, etp2.experts().expertParallelGroup(1));
        assertArrayEquals(new int[] {1, 5}, etp2.experts().dataGroup(1));
    }

    @Test
    void withExpertTpEqualToTpAndNoContextParallelismEpIsCarvedOutOfDp() {
        // the layout before folding: an EP group is ep consecutive replicas at one TP, CP and PP position
        for (String order : List.of("tp-cp-pp-dp", "tp-cp-dp-pp", "dp-tp-cp-pp", "pp-dp-cp-tp")) {
            Mesh mesh = new Mesh(4, 1, 2, 8, 4, Mesh.parseOrder(order));
            for (int device = 0; device < mesh.gpus(); device++) {
                Mesh.Coordinates at = mesh.coordinates(device);
                int first = at.dp() - at.dp() % 4;
                int[] old = new int[4];
                for (int i = 0; i < 4; i++) {
                    old[i] = mesh.device(at.tp(), 0, at.pp(), first + i);
                }
                assertArrayEquals(old, mesh.expertGroup(device), order + " GPU " + device);
                int[] holders = new int[2];
                for (int k = 0; k < 2; k++) {
                    holders[k] = mesh.device(at.tp(), 0, at.pp(), at.dp() % 4 + 4 * k);
                }
                assertArrayEquals(holders, mesh.experts().dataGroup(device), order + " GPU " + device);
            }
        }
    }

    @Test
    void contextParallelRanksFoldIntoExpertParallelism() {
        // tp 2, cp 2, dp 2, ep 4 (etp = tp): a stage's number is t + 2 (c + 2 d); EP takes t = 0 of every (c, d)
        Mesh mesh = new Mesh(2, 2, 1, 2, 4, MEGATRON);
        assertArrayEquals(new int[] {0, 2, 4, 6}, mesh.expertGroup(0));
        assertEquals(1, mesh.experts().edp());
    }

    @Test
    void foldsThatDoNotDivideTheStageAreRefused() {
        assertThrows(IllegalArgumentException.class, () -> new Mesh(2, 1, 1, 16, 64, 1, MEGATRON));
        assertThrows(IllegalArgumentException.class, () -> new Mesh(2, 1, 1, 16, 2, 4, MEGATRON),
                "an expert TP group wider than a pipeline rank");
        assertThrows(IllegalArgumentException.class, () -> new Mesh(4, 1, 1, 4, 2, 3, MEGATRON));
    }
}
