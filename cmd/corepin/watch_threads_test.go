package main

import (
	"bufio"
	"fmt"
	"os"
	"runtime"
	"time"
)

// threadsHelper is the test binary as a program of several threads (the
// Go runtime's) that starts one more for each line on its standard input
// and says "born" once the count of its threads grew; it ends when its
// standard input closes.
func threadsHelper() {
	r := bufio.NewReader(os.Stdin)
	for {
		if _, err := r.ReadString('\n'); err != nil {
			os.Exit(0)
		}
		n := threadCount()
		for threadCount() == n {
			// A goroutine locked to its thread and never ending holds
			// that thread: the next one needs a new one.
			go func() {
				runtime.LockOSThread()
				select {}
			}()
			time.Sleep(time.Millisecond)
		}
		fmt.Println("born")
	}
}

func threadCount() int {
	entries, _ := os.ReadDir("/proc/self/task")
	return len(entries)
}
