package cluster

import (
	"context"
	"fmt"
	"os"
	"testing"
)

// childUpLab makes the test binary a pgoltp that runs Up on the lab it
// names and is killed by its test (see TestUpStartsOverAfterKillDuringInitdb).
const childUpLab = "PGOLTP_TEST_CHILD_UP_LAB"

func TestMain(m *testing.M) {
	if lab := os.Getenv(childUpLab); lab != "" {
		_, err := Up(context.Background(), Options{Lab: lab, Offline: true})
		fmt.Println("child Up:", err)
		os.Exit(0)
	}
	os.Exit(m.Run())
}
