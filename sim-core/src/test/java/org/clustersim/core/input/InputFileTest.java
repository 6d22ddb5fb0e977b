package org.clustersim.core.input;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class InputFileTest {
    @TempDir
    Path dir;

    private static InputError only(InputFileException e) {
        assertEquals(1, e.errors().size(), e.getMessage());
        return e.errors().get(0);
    }

    @Test
    void theFirstBadByteIsLocatedByLineAndCharacterColumn() throws IOException {
        Path f = dir.resolve("a.yaml");
        // "é" is two bytes but one column; the bad byte follows it on line 2
        Files.write(f, new byte[] {'a', '\n', (byte) 0xc3, (byte) 0xa9, 'x', (byte) 0x80});
        InputError e = only(assertThrows(InputFileException.class,
                () -> InputFile.readText(f, 100, "a YAML file")));
        assertEquals(new SourceLocation(2, 3), e.location());
        assertEquals("found the byte 0x80, which is not UTF-8 text; save the file as UTF-8", e.message());
    }

    @Test
    void theSizeCapHoldsAndABomIsDropped() throws IOException {
        Path f = dir.resolve("b.yaml");
        Files.write(f, new byte[] {(byte) 0xef, (byte) 0xbb, (byte) 0xbf, 'k', ':', ' ', '1'});
        assertEquals("k: 1", InputFile.readText(f, 7, "a YAML file"));
        InputError e = only(assertThrows(InputFileException.class, () -> InputFile.readText(f, 6, "a YAML file")));
        assertTrue(e.message().startsWith("the file is larger than 6 bytes (7 bytes)"), e.message());
    }

    @Test
    void aMissingFileAndADirectoryAreTold() {
        assertEquals("no such file", only(assertThrows(InputFileException.class,
                () -> InputFile.checkKind(dir.resolve("x.yaml"), "a YAML file"))).message());
        assertEquals("found a directory, expected a YAML file", only(assertThrows(InputFileException.class,
                () -> InputFile.checkKind(dir, "a YAML file"))).message());
    }

    @Test
    void parserMessagesLoseLibraryNames() {
        assertEquals("Expected a field name, got a list instead",
                SourceTreeReader.scrub("Expected a field name, got <org.yaml.snakeyaml.events.SequenceStartEvent("
                        + "anchor=null)> instead"));
        assertEquals("Unexpected character ('x' (code 120))",
                SourceTreeReader.scrub("Unexpected character ('x' (code 120)) (for Object starting at "
                        + "[Source: REDACTED])"));
        assertEquals(3, SourceTreeReader.tabIndentedLine("a:\n  b: 1\n\tc: 2\n", 0));
        assertEquals(0, SourceTreeReader.tabIndentedLine("a:\t1\n", 0), "a tab after a key is no indentation");
    }
}
