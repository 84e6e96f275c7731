/* Dense switch statements (jump tables): a tiny bytecode VM. */
#include <stdint.h>

enum op { PUSH, ADD, SUB, MUL, DIV, DUP, SWAP, NEG, JZ, JMP, HALT };

long run_vm(const int32_t *code, int len) {
    long stack[64];
    int sp = 0, pc = 0;
    while (pc < len) {
        int32_t ins = code[pc++];
        switch (ins) {
        case PUSH: stack[sp++] = code[pc++]; break;
        case ADD: sp--; stack[sp - 1] += stack[sp]; break;
        case SUB: sp--; stack[sp - 1] -= stack[sp]; break;
        case MUL: sp--; stack[sp - 1] *= stack[sp]; break;
        case DIV: sp--; stack[sp - 1] = stack[sp] ? stack[sp - 1] / stack[sp] : 0; break;
        case DUP: stack[sp] = stack[sp - 1]; sp++; break;
        case SWAP: {
            long t = stack[sp - 1];
            stack[sp - 1] = stack[sp - 2];
            stack[sp - 2] = t;
            break;
        }
        case NEG: stack[sp - 1] = -stack[sp - 1]; break;
        case JZ: {
            int32_t target = code[pc++];
            if (stack[--sp] == 0)
                pc = target;
            break;
        }
        case JMP: pc = code[pc]; break;
        case HALT: return sp ? stack[sp - 1] : 0;
        default: return -1;
        }
    }
    return sp ? stack[sp - 1] : 0;
}

const char *day_name(int d) {
    switch (d) {
    case 0: return "Sunday";
    case 1: return "Monday";
    case 2: return "Tuesday";
    case 3: return "Wednesday";
    case 4: return "Thursday";
    case 5: return "Friday";
    case 6: return "Saturday";
    default: return "?";
    }
}

int days_in_month(int m, int leap) {
    switch (m) {
    case 1: case 3: case 5: case 7: case 8: case 10: case 12: return 31;
    case 4: case 6: case 9: case 11: return 30;
    case 2: return leap ? 29 : 28;
    default: return 0;
    }
}
