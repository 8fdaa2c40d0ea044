package org.apache.dubbo.benchmark.bean;

import java.io.Serializable;
import java.util.List;

/** dubbo-benchmark's Page model (same package and fields as apache/dubbo-benchmark). */
public class Page<T> implements Serializable {
    private static final long serialVersionUID = -7529237188686406553L;

    private int pageNo;
    private int total;
    private List<T> result;

    public int getPageNo() {
        return pageNo;
    }

    public void setPageNo(int pageNo) {
        this.pageNo = pageNo;
    }

    public int getTotal() {
        return total;
    }

    public void setTotal(int total) {
        this.total = total;
    }

    public List<T> getResult() {
        return result;
    }

    public void setResult(List<T> result) {
        this.result = result;
    }

    @Override
    public String toString() {
        return "Page{pageNo=" + pageNo + ", total=" + total + ", result=" + (result == null ? null : result.size())
                + " items}";
    }
}
