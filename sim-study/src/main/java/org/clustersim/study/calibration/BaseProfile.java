package org.clustersim.study.calibration;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import org.clustersim.core.input.InputError;
import org.clustersim.core.input.InputFile;
import org.clustersim.core.input.InputFileException;
import org.clustersim.core.input.SourceTreeReader;

/**
 * The device profile a calibration starts from: a bundled one by name (the classpath resource
 * {@code /org/clustersim/profiles/NAME.yaml}) or a file. It is read as a plain Jackson tree, not
 * into typed profile classes, so that every section the calibration does not measure passes
 * through unchanged and in order; the line of every value is kept for messages. The
 * calibration reads from it only the chip's dense peaks ({@code peakTflops.bf16},
 * {@code peakTflops.fp8}) and HBM bandwidth ({@code memory.bandwidthTBps}).
 *
 * @param source the file, or {@code NAME (bundled)}, for messages
 * @param tree   the whole profile
 * @param lines  the line of each value by dotted path ({@code memory.bandwidthTBps})
 */
public record BaseProfile(String source, ObjectNode tree, Map<String, Integer> lines) {
    /** Where bundled profiles live on the classpath. */
    public static final String BUNDLED = "/org/clustersim/profiles/";

    private static final YAMLFactory YAML = (YAMLFactory) SourceTreeReader.yamlFactory()
            .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION);

    /** Loads a bundled profile or a file; empty when neither works (the reason is in {@code errors}). */
    public static Optional<BaseProfile> load(String nameOrFile, List<InputError> errors) {
        Path file = Path.of(nameOrFile);
        boolean looksLikeFile = nameOrFile.contains("/") || nameOrFile.contains("\\")
                || nameOrFile.matches(".*\\.(yaml|yml|json)");
        if (Files.isRegularFile(file) || (looksLikeFile && Files.exists(file))) {
            // the shared input layer: kind, size, UTF-8, duplicate keys, finite numbers, limits
            try {
                String text = InputFile.readText(file, InputFile.MAX_STRUCTURED_BYTES, "a device profile file");
                new SourceTreeReader().parse(file, SourceTreeReader.yamlFactory(), text);
                return parse(nameOrFile, text.getBytes(StandardCharsets.UTF_8), errors);
            } catch (InputFileException e) {
                errors.addAll(e.errors());
                return Optional.empty();
            }
        }
        if (!looksLikeFile) {
            try (InputStream in = BaseProfile.class.getResourceAsStream(BUNDLED + nameOrFile + ".yaml")) {
                if (in != null) {
                    return parse(nameOrFile + " (bundled)", in.readAllBytes(), errors);
                }
            } catch (IOException e) {
                errors.add(InputError.at("--base", 0, "", "cannot read the bundled profile " + nameOrFile
                        + ": " + e.getMessage()));
                return Optional.empty();
            }
        }
        errors.add(InputError.at("--base", 0, "", "found '" + nameOrFile + "', which is "
                + (looksLikeFile ? "no file" : "neither a bundled profile (" + BUNDLED + nameOrFile + ".yaml) nor a file")
                + ", expected a bundled profile name such as h100-sxm or a profile file"));
        return Optional.empty();
    }

    private static Optional<BaseProfile> parse(String source, byte[] bytes, List<InputError> errors) {
        try {
            JsonNode tree = new YAMLMapper(YAML).readTree(bytes);
            if (!(tree instanceof ObjectNode object)) {
                errors.add(InputError.at(source, 1, "", "found " + (tree == null || tree.isMissingNode()
                        ? "an empty file" : "a " + tree.getNodeType().name().toLowerCase(Locale.ROOT))
                        + ", expected a mapping (name:, peakTflops:, memory:, ...)"));
                return Optional.empty();
            }
            Map<String, Integer> lines = new HashMap<>();
            try (JsonParser p = YAML.createParser(bytes)) {
                p.nextToken();
                locate(p, "", lines);
            }
            return Optional.of(new BaseProfile(source, object, lines));
        } catch (JsonProcessingException e) {
            String msg = e.getOriginalMessage();
            int cut = msg.indexOf('\n');
            errors.add(InputError.at(source, e.getLocation() == null ? 0 : e.getLocation().getLineNr(), "",
                    "syntax error: " + SourceTreeReader.scrub(cut > 0 ? msg.substring(0, cut) : msg)));
        } catch (IOException e) {
            errors.add(InputError.at(source, 0, "", "cannot read: " + e.getMessage()));
        }
        return Optional.empty();
    }

    /** Records the line of every key (for a mapping's entries) or value (for list items) under {@code path}. */
    private static void locate(JsonParser p, String path, Map<String, Integer> lines) throws IOException {
        lines.putIfAbsent(path, p.currentTokenLocation().getLineNr());
        JsonToken t = p.currentToken();
        if (t == JsonToken.START_OBJECT) {
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String key = path.isEmpty() ? p.currentName() : path + "." + p.currentName();
                lines.put(key, p.currentTokenLocation().getLineNr());
                p.nextToken();
                locate(p, key, lines);
            }
        } else if (t == JsonToken.START_ARRAY) {
            int i = 0;
            while (p.nextToken() != JsonToken.END_ARRAY) {
                locate(p, path + "[" + i++ + "]", lines);
            }
        }
    }

    /** The value at a dotted path, or a missing node. */
    public JsonNode at(String path) {
        JsonNode n = tree;
        for (String part : path.split("\\.")) {
            n = n.path(part);
        }
        return n;
    }

    /**
     * A number greater than zero at {@code path}; an error naming {@code expected} otherwise.
     *
     * @return the number, or empty when it is missing or not a positive number
     */
    public Optional<Double> positive(String path, String expected, List<InputError> errors) {
        JsonNode n = at(path);
        if (n.isNumber() && n.asDouble() > 0 && Double.isFinite(n.asDouble())) {
            return Optional.of(n.asDouble());
        }
        errors.add(InputError.at(source, line(path), path, "found "
                + (n.isMissingNode() ? "nothing" : "'" + n.asText() + "'") + ", expected " + expected));
        return Optional.empty();
    }

    /** The line of {@code path}, or of its closest parent in the file when it is missing; 0 if none. */
    public int line(String path) {
        String p = path;
        while (!lines.containsKey(p) && p.contains(".")) {
            p = p.substring(0, p.lastIndexOf('.'));
        }
        return lines.getOrDefault(p, 0);
    }

    /** The profile's name, if it has one. */
    public Optional<String> name() {
        JsonNode n = tree.path("name");
        return n.isTextual() ? Optional.of(n.asText()) : Optional.empty();
    }
}
