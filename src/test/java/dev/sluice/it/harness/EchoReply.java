package dev.sluice.it.harness;

import java.io.Serializable;

/** Result of {@link EchoService#exchange}: the request's seq, its text reversed, the sum of its numbers. */
public class EchoReply implements Serializable {
    private static final long serialVersionUID = 1L;

    private long seq;
    private String reversed;
    private long sum;
    /** The caller's IP as the provider saw it, proving the call crossed a real socket. */
    private String seenFrom;

    public EchoReply() {}

    public long getSeq() {
        return seq;
    }

    public void setSeq(long seq) {
        this.seq = seq;
    }

    public String getReversed() {
        return reversed;
    }

    public void setReversed(String reversed) {
        this.reversed = reversed;
    }

    public long getSum() {
        return sum;
    }

    public void setSum(long sum) {
        this.sum = sum;
    }

    public String getSeenFrom() {
        return seenFrom;
    }

    public void setSeenFrom(String seenFrom) {
        this.seenFrom = seenFrom;
    }
}
