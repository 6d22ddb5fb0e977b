package org.clustersim.study.scenario;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import com.networknt.schema.Error;
import com.networknt.schema.InputFormat;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SpecificationVersion;

/**
 * What the scenario and shared-cluster schema tests both check with a real validator (networknt,
 * draft 2020-12): a generated schema compiled, and bundled files that validate against it and name
 * its committed copy on their yaml-language-server line (so editors find it).
 */
final class SchemaChecks {
    private static final Pattern SCHEMA_LINE = Pattern.compile("^# yaml-language-server: \\$schema=(\\S+)$",
            Pattern.MULTILINE);

    private SchemaChecks() {
    }

    /** {@code text}, a generated schema, compiled for validation. */
    static Schema compiled(String text) {
        return SchemaRegistry.withDefaultDialect(SpecificationVersion.DRAFT_2020_12).getSchema(text, InputFormat.JSON);
    }

    /** Each of {@code files} validates against {@code schema} and its schema line points at {@code committed}. */
    static void validateAndNameIt(Schema schema, List<Path> files, Path committed) throws IOException {
        for (Path f : files) {
            String text = Files.readString(f, StandardCharsets.UTF_8);
            List<Error> errors = schema.validate(text, InputFormat.YAML);
            assertTrue(errors.isEmpty(), f + ": " + errors);
            Matcher m = SCHEMA_LINE.matcher(text);
            assertTrue(m.find(), f + " has no yaml-language-server $schema line");
            assertEquals(committed.normalize(), f.getParent().resolve(m.group(1)).normalize(), f + " points at "
                    + m.group(1));
        }
    }
}
