//! Statements: each becomes the instructions that do what it says, with the
//! control flow as plain branches (a loop tests its condition at the top and
//! jumps back from the bottom).

use super::{Generator, width_of};
use crate::diagnostic::{Error, Result};
use crate::sass::{Op, Operand};
use crate::typed::{Block, Expr, Stmt, StmtKind};

impl Generator<'_> {
    pub(super) fn block(&mut self, block: &Block) -> Result<()> {
        for stmt in &block.stmts {
            self.stmt(stmt)?;
        }
        Ok(())
    }

    fn stmt(&mut self, stmt: &Stmt) -> Result<()> {
        self.check_size()?;
        self.span = stmt.span;
        match &stmt.kind {
            StmtKind::Let { var, init } => {
                let reg = self.new_reg(width_of(self.var_type(*var)));
                self.frame().vars[var.0 as usize] = Some(Operand::Reg(reg));
                if let Some(init) = init {
                    self.value(init, Some(reg))?;
                }
            }
            StmtKind::Shared(_) => {}
            StmtKind::Expr(expr) => self.effect(expr)?,
            StmtKind::If { cond, then, otherwise } => self.if_else(cond, then, otherwise.as_ref())?,
            StmtKind::Loop { init, cond, step, body } => {
                self.for_loop(init.as_deref(), cond.as_ref(), step.as_ref(), body)?;
            }
            StmtKind::Break | StmtKind::Continue => {
                let Some(&(exit, next)) = self.frame().loops.last() else {
                    return Err(Error::syntax(stmt.span, "'break' or 'continue' outside a loop"));
                };
                let target = if matches!(stmt.kind, StmtKind::Break) { exit } else { next };
                self.branch(target, None);
            }
            StmtKind::Return(value) => self.ret(value.as_ref())?,
            StmtKind::Block(block) => self.block(block)?,
            StmtKind::Launch(_) => {
                return Err(Error::unsupported(stmt.span, "a kernel launch in device code is not supported"));
            }
        }
        Ok(())
    }

    fn if_else(&mut self, cond: &Expr, then: &Block, otherwise: Option<&Block>) -> Result<()> {
        let else_label = self.new_label();
        self.branch_if(cond, false, else_label)?;
        self.block(then)?;
        match otherwise {
            Some(otherwise) => {
                let end = self.new_label();
                self.span = otherwise.span;
                self.branch(end, None);
                self.place(else_label);
                self.block(otherwise)?;
                self.place(end);
            }
            None => self.place(else_label),
        }
        Ok(())
    }

    fn for_loop(&mut self, init: Option<&Stmt>, cond: Option<&Expr>, step: Option<&Expr>, body: &Block) -> Result<()> {
        if let Some(init) = init {
            self.stmt(init)?;
        }
        let (top, next, exit) = (self.new_label(), self.new_label(), self.new_label());
        self.place(top);
        if let Some(cond) = cond {
            self.branch_if(cond, false, exit)?;
        }
        self.frame().loops.push((exit, next));
        let lowered = self.block(body);
        self.frame().loops.pop();
        lowered?;
        self.place(next);
        if let Some(step) = step {
            self.effect(step)?;
        }
        self.span = cond.map_or(body.span, |cond| cond.span);
        self.branch(top, None);
        self.place(exit);
        Ok(())
    }

    fn ret(&mut self, value: Option<&Expr>) -> Result<()> {
        match self.frame().exit {
            None => {
                self.emit(Op::Exit, "EXIT", Operand::Zero, &[]);
            }
            Some((label, result)) => {
                if let Some(value) = value {
                    match result {
                        Some(reg) => {
                            self.value(value, Some(reg))?;
                        }
                        None => self.effect(value)?,
                    }
                }
                self.branch(label, None);
            }
        }
        Ok(())
    }
}
