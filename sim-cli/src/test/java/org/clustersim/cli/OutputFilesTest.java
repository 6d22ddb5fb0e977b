package org.clustersim.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import org.clustersim.cli.output.RunSummary;
import org.junit.jupiter.api.Test;

/** The summary's JSON: per-link rows written field by field read as the bean serializer writes them. */
class OutputFilesTest {
    private static String json(Object value) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        OutputFiles.json(value).writeTo(bytes);
        return bytes.toString(StandardCharsets.UTF_8);
    }

    @Test
    void linkRowsAreWrittenAsTheBeanSerializerWritesThem() throws IOException {
        List<RunSummary.LinkTraffic> links = List.of(
                new RunSummary.LinkTraffic("spine9->su22.leaf0", "SWITCH_SWITCH", 80758147824L, 1615162984L,
                        0.18126798691535037),
                new RunSummary.LinkTraffic("node0.gpu0->nvswitch \"a\"", "NVLINK", 0, 0, 0.0),
                new RunSummary.LinkTraffic("x", "PCIE", Long.MAX_VALUE, 1, 1e-300));
        Map<String, Object> value = new java.util.LinkedHashMap<>();
        value.put("before", 1.5);
        value.put("links", links);
        value.put("after", List.of(2, 3));
        String bean = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValueAsString(value) + "\n";
        assertEquals(bean, json(value));
    }

    @Test
    void aLinkRowWithANonFiniteFractionIsRefused() {
        RunSummary.LinkTraffic bad = new RunSummary.LinkTraffic("l", "NVLINK", 1, 1, Double.NaN);
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> json(List.of(bad)));
        assertTrue(e.getMessage().contains("NaN"), e.getMessage());
    }
}
