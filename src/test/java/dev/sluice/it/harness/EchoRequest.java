package dev.sluice.it.harness;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;

/** Argument of {@link EchoService#exchange}. A plain bean: fastjson2 needs a no-arg constructor. */
public class EchoRequest implements Serializable {
    private static final long serialVersionUID = 1L;

    private long seq;
    private String text;
    private List<Integer> numbers = new ArrayList<>();

    public EchoRequest() {}

    public EchoRequest(long seq, String text, List<Integer> numbers) {
        this.seq = seq;
        this.text = text;
        this.numbers = new ArrayList<>(numbers);
    }

    public long getSeq() {
        return seq;
    }

    public void setSeq(long seq) {
        this.seq = seq;
    }

    public String getText() {
        return text;
    }

    public void setText(String text) {
        this.text = text;
    }

    public List<Integer> getNumbers() {
        return numbers;
    }

    public void setNumbers(List<Integer> numbers) {
        this.numbers = numbers;
    }
}
