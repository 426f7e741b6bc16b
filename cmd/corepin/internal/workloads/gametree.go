package workloads

import "fmt"

// builtinGameTree is a full minimax search of tic-tac-toe, repeated: a game-tree
// search with a known node count (549,946 positions including the root,
// 255,168 finished games) and a known value (a draw), like a chess
// engine's perft.
var builtinGameTree = Workload{
	Name:        "gametree",
	Description: "full tic-tac-toe minimax, 549,946 nodes, 40 times (quick: 4 times)",
	Reference:   map[Size]float64{Full: 0.853, Quick: 0.0833},
	run: func(s Size) (Result, error) {
		reps := 40
		if s == Quick {
			reps = 4
		}
		var nodes, games int
		value := 0
		for range reps {
			var b board
			nodes, games = 0, 0
			value = b.minimax(1, &nodes, &games)
		}
		ok := nodes == 549_946 && games == 255_168 && value == 0
		return check(ok, fmt.Sprintf("%d searches of %d nodes, %d games, value %d", reps, nodes, games, value),
			"want 549946 nodes, 255168 games and a draw")
	},
}

type board [9]int8

var lines = [8][3]int{{0, 1, 2}, {3, 4, 5}, {6, 7, 8}, {0, 3, 6}, {1, 4, 7}, {2, 5, 8}, {0, 4, 8}, {2, 4, 6}}

func (b *board) winner() int8 {
	for _, l := range lines {
		if b[l[0]] != 0 && b[l[0]] == b[l[1]] && b[l[1]] == b[l[2]] {
			return b[l[0]]
		}
	}
	return 0
}

// minimax returns the value for player 1 with the given player to move,
// counting every position visited and every finished game.
func (b *board) minimax(player int8, nodes, games *int) int {
	*nodes++
	if w := b.winner(); w != 0 {
		*games++
		return int(w)
	}
	best, moved := -2*int(player), false
	for i := range b {
		if b[i] != 0 {
			continue
		}
		moved = true
		b[i] = player
		v := b.minimax(-player, nodes, games)
		b[i] = 0
		if (player == 1 && v > best) || (player == -1 && v < best) {
			best = v
		}
	}
	if !moved {
		*games++
		return 0
	}
	return best
}
