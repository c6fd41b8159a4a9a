//! A layered drawing of a small directed graph (the class diagram's): each edge points from a
//! row to a lower one where the graph allows (a cycle's closing edges are the exception),
//! nodes of a row ordered to keep edges short. The classic steps of Sugiyama et al.: break
//! cycles (depth-first, dropping back edges), longest-path layering, barycentre ordering
//! sweeps. Written here rather than taken from a crate: it is ~100 lines, and the graph crates
//! on the registry lay out for SVG with their own types and dependencies.

/// Positions `(column, row)` for `nodes` nodes joined by `edges` (`(from, to)`: `from` is drawn
/// above `to`); rows from 0 at the top, columns from 0, each row centred on the widest. Edges
/// naming a node `>= nodes`, and self-loops, are ignored.
pub fn layered(nodes: usize, edges: &[(usize, usize)]) -> Vec<[f32; 2]> {
    let mut out_edges: Vec<Vec<usize>> = vec![Vec::new(); nodes];
    for &(from, to) in edges {
        if from < nodes && to < nodes && from != to && !out_edges[from].contains(&to) {
            out_edges[from].push(to);
        }
    }
    // Depth-first from every unvisited node: an edge into a node still on the stack closes a
    // cycle and is dropped; the rest form a DAG, finished nodes in reverse topological order.
    let mut state = vec![0u8; nodes]; // 0 new, 1 on the stack, 2 done
    let mut finished: Vec<usize> = Vec::with_capacity(nodes);
    let mut kept: Vec<Vec<usize>> = vec![Vec::new(); nodes];
    for root in 0..nodes {
        if state[root] != 0 {
            continue;
        }
        let mut stack: Vec<(usize, usize)> = vec![(root, 0)];
        state[root] = 1;
        while let Some(&mut (node, ref mut next)) = stack.last_mut() {
            if let Some(&to) = out_edges[node].get(*next) {
                *next += 1;
                match state[to] {
                    0 => {
                        kept[node].push(to);
                        state[to] = 1;
                        stack.push((to, 0));
                    }
                    2 => kept[node].push(to),
                    _ => {} // a back edge
                }
            } else {
                state[node] = 2;
                finished.push(node);
                stack.pop();
            }
        }
    }
    // Longest path from the sources: a node one row below its lowest parent.
    let mut row = vec![0usize; nodes];
    for &node in finished.iter().rev() {
        for &to in &kept[node] {
            row[to] = row[to].max(row[node] + 1);
        }
    }
    let rows = row.iter().copied().max().map_or(0, |max| max + 1);
    let mut by_row: Vec<Vec<usize>> = vec![Vec::new(); rows];
    for node in 0..nodes {
        by_row[row[node]].push(node);
    }
    let mut parents: Vec<Vec<usize>> = vec![Vec::new(); nodes];
    let mut children: Vec<Vec<usize>> = vec![Vec::new(); nodes];
    for (from, tos) in kept.iter().enumerate() {
        for &to in tos {
            parents[to].push(from);
            children[from].push(to);
        }
    }
    let mut column = vec![0f32; nodes];
    let place = |by_row: &Vec<Vec<usize>>, column: &mut Vec<f32>| {
        for nodes in by_row {
            for (index, &node) in nodes.iter().enumerate() {
                column[node] = index as f32;
            }
        }
    };
    place(&by_row, &mut column);
    // Down and up sweeps: order each row by the mean column of its neighbours in the row
    // before (nodes without any keep their place).
    for sweep in 0..4 {
        let down = sweep % 2 == 0;
        let order: Vec<usize> = if down {
            (1..rows).collect()
        } else {
            (0..rows.saturating_sub(1)).rev().collect()
        };
        for r in order {
            let mut keyed: Vec<(f32, usize)> = by_row[r]
                .iter()
                .map(|&node| {
                    let near = if down {
                        &parents[node]
                    } else {
                        &children[node]
                    };
                    let key = if near.is_empty() {
                        column[node]
                    } else {
                        near.iter().map(|&n| column[n]).sum::<f32>() / near.len() as f32
                    };
                    (key, node)
                })
                .collect();
            keyed.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
            by_row[r] = keyed.into_iter().map(|(_, node)| node).collect();
            place(&by_row, &mut column);
        }
    }
    let widest = by_row.iter().map(Vec::len).max().unwrap_or(0) as f32;
    let mut positions = vec![[0.0; 2]; nodes];
    for (r, nodes) in by_row.iter().enumerate() {
        let offset = (widest - nodes.len() as f32) / 2.0;
        for (index, &node) in nodes.iter().enumerate() {
            positions[node] = [offset + index as f32, r as f32];
        }
    }
    positions
}

#[cfg(test)]
mod tests {
    use super::layered;

    #[test]
    fn edges_point_down_and_no_two_nodes_share_a_place() {
        // A program holds procs, a proc holds nodes, three node kinds extend Node (drawn as
        // Node above them), and a cycle back to the program.
        let edges = [
            (0, 1),
            (1, 2),
            (2, 3),
            (2, 4),
            (2, 5),
            (5, 0),
            (9, 9),
            (1, 42),
        ];
        let positions = layered(6, &edges);
        assert_eq!(positions.len(), 6);
        for &(from, to) in &edges[..5] {
            assert!(
                positions[from][1] < positions[to][1],
                "{from}→{to}: {positions:?}"
            );
        }
        for (a, pa) in positions.iter().enumerate() {
            for pb in &positions[a + 1..] {
                assert_ne!(pa, pb, "{positions:?}");
            }
        }
        // Rows 0..=3; the three siblings share the bottom row, centred under their parent.
        assert_eq!(positions[3][1], 3.0);
        assert_eq!(positions[2][0], 1.0);
    }

    #[test]
    fn no_edges_is_one_row() {
        assert_eq!(layered(3, &[]), vec![[0.0, 0.0], [1.0, 0.0], [2.0, 0.0]]);
        assert!(layered(0, &[(0, 1)]).is_empty());
    }
}
